import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { bulkJobs } from "../../db/schema-bulk.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { jobStub, onJob } from "../jobs.js";
import { deletePrefix } from "../storage.js";
import { ActionSchema, action, assertOwnJob, JobErrors, JobParams, security, TAG } from "./shared.js";

const route = createRoute({
  method: "delete",
  path: "/bulk/{type}/{id}/delete",
  tags: [TAG],
  security,
  summary: "Delete a job that is not running, with its files (DELETE /bulk/{type}/{id} was removed)",
  request: { params: JobParams },
  responses: {
    200: { description: "Deleted", content: { "application/json": { schema: ActionSchema } } },
    ...JobErrors,
  },
});

/** The removed path answers with an error that names its replacement. */
const removed = createRoute({
  method: "delete",
  path: "/bulk/{type}/{id}",
  tags: [TAG],
  security,
  hide: true,
  summary: "Removed: use DELETE /bulk/{type}/{id}/delete",
  request: { params: z.object({ type: z.string(), id: z.string() }) },
  responses: { 404: JobErrors[404] },
});

export function registerDeleteJob(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { type, id } = c.req.valid("param");
    await assertOwnJob(c, type, id);
    const { prefix } = await onJob(jobStub(c.env, id).remove(Date.now()));
    await deletePrefix(c.env.BULK_FILES, prefix);
    await db(c.env.DB).delete(bulkJobs).where(eq(bulkJobs.id, id));
    return c.json(action("deleted", "Bulk deleted."), 200);
  });
  app.openapi(removed, async (c) => {
    const { type, id } = c.req.valid("param");
    throw new ApiError(
      404,
      "unknown_route",
      `DELETE /v1/bulk/${type}/${id} was removed; use DELETE /v1/bulk/${type}/${id}/delete.`,
    );
  });
}
