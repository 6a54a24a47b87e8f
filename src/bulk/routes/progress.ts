import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { jobStub, onJob } from "../jobs.js";
import { MetricsSchema } from "./job-schema.js";
import { assertOwnJob, JobErrors, JobParams, security, TAG } from "./shared.js";

export const ProgressSchema = z
  .object({
    status: z.boolean().openapi({ description: "Gen 1: true once the job has ended" }),
    progress: z.number().int(),
    processed: z.number().int(),
    processed_email: z.number().int(),
    state: z.string().openapi({ description: "pending, running, completed, failed or cancelled" }),
    total: z.number().int(),
    rows_per_second: z.number(),
    eta_seconds: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Null when not running or no row has finished yet" }),
    error_message: z.string().nullable(),
    metrics: MetricsSchema,
  })
  .openapi("BulkProgress");
export type BulkProgress = z.infer<typeof ProgressSchema>;

const route = createRoute({
  method: "get",
  path: "/bulk/{type}/{id}/progress",
  tags: [TAG],
  security,
  summary: "Progress of a job: the gen 1 fields (top level), live metrics and an ETA",
  request: { params: JobParams },
  responses: {
    200: { description: "Progress", content: { "application/json": { schema: ProgressSchema } } },
    ...JobErrors,
  },
});

export function registerProgress(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { type, id } = c.req.valid("param");
    await assertOwnJob(c, type, id);
    const job = await onJob(jobStub(c.env, id).read(Date.now()));
    const total = job.metrics.rows.input;
    const seconds = job.metrics.timing.duration_ms / 1000;
    const rate = seconds > 0 ? job.processed / seconds : 0;
    const eta = job.status === "running" && rate > 0 ? Math.ceil((total - job.processed) / rate) : null;
    return c.json(
      {
        status: job.status === "completed" || job.status === "failed" || job.status === "cancelled",
        progress: job.progress,
        processed: job.processed,
        processed_email: job.metrics.emails?.total ?? job.metrics.results.found,
        state: job.status,
        total,
        rows_per_second: Math.round(rate * 100) / 100,
        eta_seconds: eta,
        error_message: job.error_message,
        metrics: job.metrics,
      },
      200,
    );
  });
}
