import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, count, desc, eq, gt, like, lte, type SQL } from "drizzle-orm";
import { db } from "../../db/client.js";
import { bulkJobs } from "../../db/schema-bulk.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { queryBool, queryIntOr } from "../../http/validation.js";
import type { RenderedJob } from "./job-schema.js";
import { JobErrors, JobSchema, security, TAG, TypeParam } from "./shared.js";

const Query = z.object({
  page: queryIntOr(1, { min: 1 }),
  limit: queryIntOr(10, { min: 1, max: 50 }),
  direction: z.enum(["desc", "asc"]).default("desc"),
  archived: queryBool().openapi({ description: "true: archived jobs only (default: jobs not archived)" }),
  expired: queryBool().openapi({ description: "true: expired jobs only; false: jobs still valid" }),
  status: z.enum(["pending", "running", "completed", "failed", "cancelled"]).optional(),
  q: z.string().trim().min(1).max(200).optional().openapi({ description: "Part of the job name" }),
  filter: z
    .enum(["archived", "all"])
    .optional()
    .openapi({ description: "Former: archived (= archived=true) or all (archived and not)" }),
});

const int = z.number().int();
export const JobListMetaSchema = z
  .object({
    total: int,
    page: int,
    limit: int,
    total_pages: int,
    pageSize: int.openapi({ description: "Former name of limit" }),
    current: int.openapi({ description: "Former name of page" }),
  })
  .openapi("BulkJobListMeta");
export type BulkJobListMeta = z.infer<typeof JobListMetaSchema>;

const route = createRoute({
  method: "get",
  path: "/bulk/{type}",
  tags: [TAG],
  security,
  summary: "List jobs of a type",
  request: { params: TypeParam, query: Query },
  responses: {
    200: {
      description: "Jobs",
      content: {
        "application/json": { schema: z.object({ data: z.array(JobSchema), meta: JobListMetaSchema }) },
      },
    },
    ...JobErrors,
  },
});

export function registerListJobs(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { type } = c.req.valid("param");
    const q = c.req.valid("query");
    if (q.filter && q.archived !== undefined)
      throw new ApiError(
        400,
        "params_invalid",
        "The parameter 'filter' is the former form of 'archived'; send only one of them.",
      );
    const now = Date.now();
    const where: SQL[] = [eq(bulkJobs.accountId, c.get("auth").account.id), eq(bulkJobs.type, type)];
    if (q.filter !== "all") where.push(eq(bulkJobs.archived, q.filter === "archived" || q.archived === true));
    if (q.expired === true) where.push(lte(bulkJobs.expiredAt, now));
    if (q.expired === false) where.push(gt(bulkJobs.expiredAt, now));
    if (q.status) where.push(eq(bulkJobs.status, q.status));
    if (q.q) where.push(like(bulkJobs.name, `%${q.q.replace(/[%_]/g, "")}%`));
    const store = db(c.env.DB);
    const [rows, [total]] = await Promise.all([
      store
        .select({ snapshot: bulkJobs.snapshot, expiredAt: bulkJobs.expiredAt })
        .from(bulkJobs)
        .where(and(...where))
        .orderBy(
          q.direction === "asc" ? asc(bulkJobs.createdAt) : desc(bulkJobs.createdAt),
          q.direction === "asc" ? asc(bulkJobs.id) : desc(bulkJobs.id),
        )
        .limit(q.limit)
        .offset((q.page - 1) * q.limit),
      store
        .select({ n: count() })
        .from(bulkJobs)
        .where(and(...where)),
    ]);
    // A job's index row holds its last rendered view (syncIndex).
    const data = rows.map((r) => ({ ...(r.snapshot as RenderedJob), expired: now >= r.expiredAt }));
    const n = total?.n ?? 0;
    return c.json(
      {
        data,
        meta: {
          total: n,
          page: q.page,
          limit: q.limit,
          pageSize: q.limit,
          current: q.page,
          total_pages: Math.ceil(n / q.limit),
        },
      },
      200,
    );
  });
}
