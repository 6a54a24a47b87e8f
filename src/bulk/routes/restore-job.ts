import type { ApiApp } from "../../http/openapi.js";
import { jobStub, onJob } from "../jobs.js";
import { registerAction } from "./action-route.js";

export function registerRestoreJob(app: ApiApp) {
  registerAction(app, {
    method: "put",
    path: "/bulk/{type}/{id}/restore",
    summary: "Restore an archived job",
    done: "Bulk restored.",
    run: (env, job, who, now) => onJob(jobStub(env, job.id).restore(now, who.actorId)),
  });
}
