import type { ApiApp } from "../../http/openapi.js";
import { startJob } from "../launch.js";
import { registerAction } from "./action-route.js";
import { typeOf } from "./shared.js";

/** pending -> running, at the gen 1 path (PUT /{id}) and the gen 2 one (POST /{id}/launch). */
export function registerLaunchJob(app: ApiApp) {
  for (const [method, path] of [
    ["put", "/bulk/{type}/{id}"],
    ["post", "/bulk/{type}/{id}/launch"],
  ] as const) {
    registerAction(app, {
      method,
      path,
      summary: method === "put" ? "Launch a pending job (gen 1 path)" : "Launch a pending job",
      done: "Bulk launched.",
      run: (env, job, who, now) => startJob(env, typeOf(job.type), job.id, who, "launch", now),
    });
  }
}
