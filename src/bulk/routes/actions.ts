import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { jobStub, onJob } from "../jobs.js";
import { startJob } from "../launch.js";
import { action, ActionSchema, assertOwnJob, auth, JobErrors, JobParams, security, TAG, typeOf } from "./shared.js";

/**
 * State actions on one job. Each is its own documented route; the job's object decides whether
 * its current status allows it (409 invalid_state otherwise).
 */
type Action = "launch" | "cancel" | "retry" | "restore" | "archive";
const ACTIONS: { name: Action; method: "put" | "post" | "delete"; path: string; summary: string; done: string }[] = [
  { name: "launch", method: "put", path: "/bulk/{type}/{id}", summary: "Launch a pending job (gen 1 path)", done: "Bulk launched." },
  { name: "launch", method: "post", path: "/bulk/{type}/{id}/launch", summary: "Launch a pending job", done: "Bulk launched." },
  { name: "cancel", method: "post", path: "/bulk/{type}/{id}/cancel", summary: "Cancel a pending or running job", done: "Bulk cancelled." },
  { name: "retry", method: "post", path: "/bulk/{type}/{id}/retry", summary: "Run the unfinished rows of a failed or cancelled job again", done: "Bulk relaunched for its unfinished rows." },
  { name: "restore", method: "put", path: "/bulk/{type}/{id}/restore", summary: "Restore an archived job", done: "Bulk restored." },
  { name: "archive", method: "delete", path: "/bulk/{type}/{id}/archive", summary: "Archive a job that is not running", done: "Bulk archived." },
];

export function registerActions(app: ApiApp) {
  for (const a of ACTIONS) {
    const route = createRoute({
      method: a.method,
      path: a.path,
      tags: [TAG],
      security,
      summary: a.summary,
      request: { params: JobParams },
      responses: { 200: { description: a.done, content: { "application/json": { schema: ActionSchema } } }, ...JobErrors },
    });
    app.openapi(route, async (c) => {
      const { type, id } = c.req.valid("param");
      await assertOwnJob(c, type, id);
      const who = auth(c);
      const now = Date.now();
      const job = jobStub(c.env, id);
      const view =
        a.name === "launch" || a.name === "retry"
          ? await startJob(c.env, typeOf(type), id, who, a.name, now)
          : await onJob(a.name === "cancel" ? job.cancel(now, who.actorId) : a.name === "restore" ? job.restore(now, who.actorId) : job.archive(now, who.actorId));
      return c.json(action(view.status, a.done), 200);
    });
  }
}

export const RenameBody = z.object({ name: z.string().trim().min(3, { message: "must be 3 to 200 characters" }).max(200, { message: "must be 3 to 200 characters" }) });
