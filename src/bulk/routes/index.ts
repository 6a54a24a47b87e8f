import type { ApiApp } from "../../http/openapi.js";
import { registerArchiveJob } from "./archive-job.js";
import { registerCancelJob } from "./cancel-job.js";
import { registerColumns } from "./columns.js";
import { registerCreateJob } from "./create-job.js";
import { registerDeleteJob } from "./delete-job.js";
import { registerDownload } from "./download.js";
import { registerEstimate } from "./estimate.js";
import { registerGetJob } from "./get-job.js";
import { registerHistory } from "./history.js";
import { registerLaunchJob } from "./launch-job.js";
import { registerListJobs } from "./list-jobs.js";
import { registerListTypes } from "./list-types.js";
import { registerProgress } from "./progress.js";
import { registerRename } from "./rename.js";
import { registerRestoreJob } from "./restore-job.js";
import { registerRetryJob } from "./retry-job.js";
import { registerStats } from "./stats.js";
import { registerWebhookSecret } from "./webhook-secret.js";

/** Every /v1/bulk route; fixed paths (types, stats, webhook-secret) before /bulk/{type}. */
export function registerBulkRoutes(app: ApiApp) {
  registerListTypes(app);
  registerStats(app);
  registerWebhookSecret(app);
  registerListJobs(app);
  registerCreateJob(app);
  registerColumns(app);
  registerGetJob(app);
  registerProgress(app);
  registerLaunchJob(app);
  registerCancelJob(app);
  registerRetryJob(app);
  registerRestoreJob(app);
  registerArchiveJob(app);
  registerRename(app);
  registerEstimate(app);
  registerHistory(app);
  registerDownload(app);
  registerDeleteJob(app);
}
