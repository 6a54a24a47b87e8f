import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { db } from "../../db/client.js";
import { bulkJobs } from "../../db/schema-bulk.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { DAY_MS } from "../../platform/time.js";
import { BULK_TYPE_NAMES, bulkType } from "../types.js";
import { JobErrors, security, TAG } from "./shared.js";

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: "expected YYYY-MM-DD" })
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), { message: "expected a real date" });
const Query = z.object({ type: z.enum(BULK_TYPE_NAMES).optional(), from: day.optional(), to: day.optional() });

const count = z.number().int();
const percent = z.number().openapi({ description: "0-100, two decimals" });
const Credits = z.object({ search: z.number(), verify: z.number(), phone: z.number(), total: z.number() });

export const StatsSchema = z
  .object({
    from: z.string().openapi({ description: "YYYY-MM-DD, inclusive" }),
    to: z.string().openapi({ description: "YYYY-MM-DD, inclusive" }),
    jobs: z
      .object({ total: count, pending: count, running: count, completed: count, failed: count, cancelled: count })
      .openapi({ description: "Jobs created in the period, by status" }),
    rows_processed: count,
    found: count,
    emails_found: count,
    hit_rate: percent,
    credits: Credits,
    by_type: z.array(
      z.object({
        type: z.string(),
        label: z.string(),
        jobs: count,
        rows_processed: count,
        found: count,
        hit_rate: percent,
        credits: Credits,
      }),
    ),
    daily: z
      .array(z.object({ date: z.string(), jobs: count, rows_processed: count, credits: z.number() }))
      .openapi({ description: "Days with jobs created, oldest first" }),
  })
  .openapi("BulkStats");
export type BulkStats = z.infer<typeof StatsSchema>;

const route = createRoute({
  method: "get",
  path: "/bulk/stats",
  tags: [TAG],
  security,
  summary: "The account's bulk activity between from and to (YYYY-MM-DD, inclusive; default the last 30 days)",
  request: { query: Query },
  responses: {
    200: {
      description: "Stats",
      content: { "application/json": { schema: z.object({ data: StatsSchema }) } },
    },
    ...JobErrors,
  },
});

export function registerStats(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const today = new Date().toISOString().slice(0, 10);
    const to = q.to ?? today;
    const from = q.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
    const start = Date.parse(`${from}T00:00:00Z`);
    const end = Date.parse(`${to}T00:00:00Z`) + DAY_MS;
    if (start >= end) throw new ApiError(400, "params_invalid", "The parameter 'from' is invalid: it is after 'to'.");
    const where: SQL[] = [
      eq(bulkJobs.accountId, c.get("auth").account.id),
      gte(bulkJobs.createdAt, start),
      lt(bulkJobs.createdAt, end),
    ];
    if (q.type) where.push(eq(bulkJobs.type, q.type));
    const credits = sql<number>`sum(${bulkJobs.creditsSearch} + ${bulkJobs.creditsVerify} + ${bulkJobs.creditsPhone})`;
    const store = db(c.env.DB);
    const [byStatus, byType, daily] = await Promise.all([
      store
        .select({ status: bulkJobs.status, n: sql<number>`count(*)` })
        .from(bulkJobs)
        .where(and(...where))
        .groupBy(bulkJobs.status),
      store
        .select({
          type: bulkJobs.type,
          jobs: sql<number>`count(*)`,
          rows: sql<number>`sum(${bulkJobs.rowsProcessed})`,
          found: sql<number>`sum(${bulkJobs.found})`,
          emails: sql<number>`sum(${bulkJobs.emailsFound})`,
          search: sql<number>`sum(${bulkJobs.creditsSearch})`,
          verify: sql<number>`sum(${bulkJobs.creditsVerify})`,
          phone: sql<number>`sum(${bulkJobs.creditsPhone})`,
        })
        .from(bulkJobs)
        .where(and(...where))
        .groupBy(bulkJobs.type),
      store
        .select({
          date: sql<string>`date(${bulkJobs.createdAt} / 1000, 'unixepoch')`,
          jobs: sql<number>`count(*)`,
          rows: sql<number>`sum(${bulkJobs.rowsProcessed})`,
          credits,
        })
        .from(bulkJobs)
        .where(and(...where))
        .groupBy(sql`1`)
        .orderBy(sql`1`),
    ]);
    const jobs = { total: 0, pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
    for (const s of byStatus) {
      jobs[s.status] = s.n;
      jobs.total += s.n;
    }
    const sum = (k: "rows" | "found" | "emails" | "search" | "verify" | "phone") =>
      byType.reduce((a, t) => a + (t[k] ?? 0), 0);
    const hit = (found: number, rows: number) => (rows > 0 ? Math.round((found / rows) * 10_000) / 100 : 0);
    const totalCredits = {
      search: sum("search"),
      verify: sum("verify"),
      phone: sum("phone"),
      total: sum("search") + sum("verify") + sum("phone"),
    };
    return c.json(
      {
        data: {
          from,
          to,
          jobs,
          rows_processed: sum("rows"),
          found: sum("found"),
          emails_found: sum("emails"),
          hit_rate: hit(sum("found"), sum("rows")),
          credits: totalCredits,
          by_type: byType.map((t) => ({
            type: t.type,
            label: bulkType(t.type)?.decl.label ?? t.type,
            jobs: t.jobs,
            rows_processed: t.rows ?? 0,
            found: t.found ?? 0,
            hit_rate: hit(t.found ?? 0, t.rows ?? 0),
            credits: {
              search: t.search ?? 0,
              verify: t.verify ?? 0,
              phone: t.phone ?? 0,
              total: (t.search ?? 0) + (t.verify ?? 0) + (t.phone ?? 0),
            },
          })),
          daily: daily.map((d) => ({
            date: d.date,
            jobs: d.jobs,
            rows_processed: d.rows ?? 0,
            credits: d.credits ?? 0,
          })),
        },
      },
      200,
    );
  });
}
