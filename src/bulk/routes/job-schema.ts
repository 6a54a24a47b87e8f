import { z } from "@hono/zod-openapi";
import type { JobView } from "../job-view.js";

/**
 * A bulk job as GET /v1/bulk/{type}/{id} and GET /v1/bulk/{type} serve it (renderJob,
 * src/bulk/job-view.ts): the one description of its shape, published in the OpenAPI document and
 * read by the dashboard through the exported type.
 */

const count = z.number().int();
const instant = z.string().openapi({ description: "RFC 3339", example: "2026-01-01T00:00:00+00:00" });
const percent = z.number().openapi({ description: "0-100, two decimals" });

const ConfigSchema = z
  .object({
    v: z.literal(1),
    input: z.object({
      source: z.enum(["file", "data", "list"]),
      has_header: z.boolean(),
      delimiter: z.string().nullable(),
      original_file_name: z.string().nullable(),
      rows: count,
      fields: z.record(z.string(), count).openapi({ description: "Capability parameter -> column index" }),
    }),
    options: z.record(z.string(), z.union([z.boolean(), z.number(), z.string(), z.array(z.string())]).optional()),
    notify: z.boolean(),
    webhook: z.object({ url: z.string() }).optional(),
  })
  .openapi("BulkJobConfig", { description: "What the job was created with" });

export const MetricsSchema = z
  .object({
    v: z.literal(1),
    partial: z.boolean().openapi({ description: "true until the job completed" }),
    rows: z
      .object({
        input: count,
        valid_input: count,
        invalid_input: count,
        duplicates: count,
        skipped: count,
        processed: count,
        errors: count,
      })
      .openapi({
        description:
          "input = valid_input + invalid_input + duplicates + skipped; valid_input = processed + errors once every row ran",
      }),
    results: z.object({ found: count, not_found: count, hit_rate: percent, records: count }),
    distribution: z.object({
      rows: z.array(z.object({ key: z.string(), label: z.string(), count, percent })),
    }),
    emails: z
      .object({ total: count, per_found_row: z.number() })
      .optional()
      .openapi({ description: "Types that find addresses (finder, search, author, linkedin)" }),
    errors: z.object({ client: count, server: count, rate_limited: count }),
    credits: z.object({ search: z.number(), verify: z.number(), phone: z.number(), total: z.number() }),
    timing: z.object({ queued_ms: count, duration_ms: count, rows_per_minute: z.number() }),
  })
  .openapi("BulkJobMetrics");

export const JobSchema = z
  .object({
    id: count,
    bulk_id: count.openapi({ description: "The same as id" }),
    user_id: count,
    bulk_type: z.string(),
    name: z.string(),
    status: z.enum(["pending", "running", "completed", "failed", "cancelled"]),
    archived: z.boolean(),
    progress: count.openapi({ description: "0-100" }),
    processed: count.openapi({ description: "Rows done, whatever became of them" }),
    billed: z.boolean().openapi({ description: "true once the job ended with rows done" }),
    error_message: z.string().nullable(),
    summary: z.string().nullable().openapi({ description: "What became of the rows, in one sentence" }),
    retry_count: count,
    created_at: instant,
    started_at: instant.nullable(),
    completed_at: instant.nullable(),
    cancelled_at: instant.nullable(),
    expired_at: instant,
    expired: z.boolean(),
    config: ConfigSchema,
    metrics: MetricsSchema,
    preview: z
      .array(z.record(z.string(), z.string()))
      .optional()
      .openapi({ description: "The first result rows, once billed" }),
  })
  .openapi("BulkJob", { description: "A bulk job: its state, what it was created with, and what became of its rows" });

export type BulkJobData = z.infer<typeof JobSchema>;
export type BulkJobMetrics = z.infer<typeof MetricsSchema>;

/** The job renderJob builds; this stops compiling when it no longer fits the schema. */
type Fits<T extends BulkJobData> = T;
export type RenderedJob = Fits<JobView>;
