import type { ApiApp } from "../../http/openapi.js";
import { jobStub, onJob } from "../jobs.js";
import { registerAction } from "./action-route.js";

export function registerArchiveJob(app: ApiApp) {
  registerAction(app, {
    method: "delete",
    path: "/bulk/{type}/{id}/archive",
    summary: "Archive a job that is not running",
    done: "Bulk archived.",
    run: (env, job, who, now) => onJob(jobStub(env, job.id).archive(now, who.actorId)),
  });
}
