import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { jobStub, onJob } from "../jobs.js";
import { ActionSchema, action, assertOwnJob, auth, JobErrors, JobParams, security, TAG } from "./shared.js";

const RenameBody = z.object({
  name: z
    .string()
    .trim()
    .min(3, { message: "must be 3 to 200 characters" })
    .max(200, { message: "must be 3 to 200 characters" }),
});

const route = createRoute({
  method: "put",
  path: "/bulk/{type}/{id}/rename",
  tags: [TAG],
  security,
  summary: "Rename a job",
  request: { params: JobParams, body: { content: { "application/json": { schema: RenameBody } }, required: true } },
  responses: {
    200: { description: "Renamed", content: { "application/json": { schema: ActionSchema } } },
    ...JobErrors,
  },
});

export function registerRename(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { type, id } = c.req.valid("param");
    await assertOwnJob(c, type, id);
    const view = await onJob(jobStub(c.env, id).rename(c.req.valid("json").name, Date.now(), auth(c).actorId));
    return c.json(action(view.status, "Bulk renamed."), 200);
  });
}
