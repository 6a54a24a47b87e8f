import type { ApiApp } from "../../http/openapi.js";
import { startJob } from "../launch.js";
import { registerAction } from "./action-route.js";
import { typeOf } from "./shared.js";

export function registerRetryJob(app: ApiApp) {
  registerAction(app, {
    method: "post",
    path: "/bulk/{type}/{id}/retry",
    summary: "Run the unfinished rows of a failed or cancelled job again",
    done: "Bulk relaunched for its unfinished rows.",
    run: (env, job, who, now) => startJob(env, typeOf(job.type), job.id, who, "retry", now),
  });
}
