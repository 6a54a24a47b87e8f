import type { ApiApp } from "../../http/openapi.js";
import { jobStub, onJob } from "../jobs.js";
import { registerAction } from "./action-route.js";

export function registerCancelJob(app: ApiApp) {
  registerAction(app, {
    method: "post",
    path: "/bulk/{type}/{id}/cancel",
    summary: "Cancel a pending or running job",
    done: "Bulk cancelled.",
    run: (env, job, who, now) => onJob(jobStub(env, job.id).cancel(now, who.actorId)),
  });
}
