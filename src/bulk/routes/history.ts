import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { queryIntOr } from "../../http/validation.js";
import { jobStub, onJob } from "../jobs.js";
import { assertOwnJob, JobErrors, JobParams, security, TAG } from "./shared.js";

export const EventSchema = z.object({
  id: z.number().int(),
  user_id: z.number().int().nullable(),
  event: z.string(),
  actor: z.string(),
  message: z.string().nullable(),
  meta: z.unknown(),
  created_at: z.string(),
});

const count = z.number().int();
export const HistoryMetaSchema = z
  .object({ total: count, page: count, limit: count, total_pages: count })
  .openapi("BulkHistoryMeta");
export type BulkHistoryMeta = z.infer<typeof HistoryMetaSchema>;

const route = createRoute({
  method: "get",
  path: "/bulk/{type}/{id}/history",
  tags: [TAG],
  security,
  summary:
    "Events of a job (created, launched, progress, cancelled, retried, failed, completed, downloaded, ...), oldest first",
  request: {
    params: JobParams,
    query: z.object({ page: queryIntOr(1, { min: 1 }), limit: queryIntOr(20, { min: 1, max: 100 }) }),
  },
  responses: {
    200: {
      description: "History",
      content: {
        "application/json": {
          schema: z.object({ data: z.array(EventSchema), meta: HistoryMetaSchema }),
        },
      },
    },
    ...JobErrors,
  },
});

export function registerHistory(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { type, id } = c.req.valid("param");
    const { page, limit } = c.req.valid("query");
    await assertOwnJob(c, type, id);
    const { events, total } = await onJob(jobStub(c.env, id).history(page, limit));
    return c.json(
      {
        data: events.map((e) => ({ ...e, meta: e.meta === null ? null : (JSON.parse(e.meta) as unknown) })),
        meta: { total, page, limit, total_pages: Math.ceil(total / limit) },
      },
      200,
    );
  });
}
