import { z } from "@hono/zod-openapi";
import { and, eq, gte, lt, sql } from "drizzle-orm";
import { db } from "../db/client.js";
import { requestLogs } from "../db/schema.js";
import { ApiError } from "../http/errors.js";
import { type ApiApp, type Ctx, defineRoute, input } from "../http/openapi.js";
import { DAY_MS, parseInstant, startOfUtcDay } from "../http/time.js";
import { ErrorResponses, security } from "./openapi-shared.js";
import { creditSummary } from "./credits.js";

/** Usage buckets, as /v1/usage reports them. */
export const USAGE_CATEGORIES = ["search", "verifier", "phones", "sources", "similar", "technologies", "email_count", "export"] as const;

const Query = z.object({
  start: z.string().optional().openapi({ description: "First day (YYYY-MM-DD or RFC 3339); default 30 days ago" }),
  end: z.string().optional().openapi({ description: "Last day, inclusive; default today" }),
});

export function registerUsageRoute(v1: ApiApp) {
  defineRoute(
    v1,
    {
      method: "get",
      path: "/usage",
      tags: ["Account"],
      security,
      summary: "Charged requests per day and in total (not rate-limited)",
      request: { query: Query },
      responses: {
        200: { description: "Usage", content: { "application/json": { schema: z.object({ data: z.array(z.record(z.string(), z.unknown())), total: z.record(z.string(), z.number()) }) } } },
        ...ErrorResponses,
      },
    },
    async (c: Ctx) => {
      const q = input<z.infer<typeof Query>>(c, "query");
      const today = startOfUtcDay(Date.now());
      const from = q.start ? parseInstant(q.start) : today - 29 * DAY_MS;
      const to = q.end ? parseInstant(q.end) : today;
      if (from === null) throw new ApiError(400, "params_invalid", "The parameter 'start' is invalid: expected YYYY-MM-DD or RFC 3339.");
      if (to === null) throw new ApiError(400, "params_invalid", "The parameter 'end' is invalid: expected YYYY-MM-DD or RFC 3339.");
      const account = c.get("auth").account;
      const rows = await db(c.env.DB)
        .select({
          day: sql<number>`(${requestLogs.createdAt} / ${DAY_MS}) * ${DAY_MS}`,
          category: requestLogs.usageCategory,
          n: sql<number>`count(*)`,
        })
        .from(requestLogs)
        .where(
          and(
            eq(requestLogs.accountId, account.id),
            eq(requestLogs.cost, true),
            gte(requestLogs.createdAt, startOfUtcDay(from)),
            lt(requestLogs.createdAt, startOfUtcDay(to) + DAY_MS),
          ),
        )
        .groupBy(sql`1`, requestLogs.usageCategory)
        .orderBy(sql`1 desc`);
      const days = new Map<number, Record<string, number>>();
      for (const r of rows) {
        const day = days.get(Number(r.day)) ?? {};
        if (r.category) day[r.category] = (day[r.category] ?? 0) + Number(r.n);
        days.set(Number(r.day), day);
      }
      const total = emptyUsage();
      const data = [...days.entries()].map(([day, counts], i) => {
        const row = { ...emptyUsage(), ...counts };
        row.source_api = USAGE_CATEGORIES.reduce((s, k) => s + (row[k] ?? 0), 0);
        for (const k of Object.keys(total)) total[k] += row[k] ?? 0;
        const date = new Date(day).toISOString().slice(0, 10);
        return {
          id: i + 1,
          user_id: account.id,
          ...row,
          // The older shape of the same numbers, for clients that read it.
          usage: row.source_api,
          domain: row.search,
          finder: row.search,
          verifier: row.verifier,
          api: row.source_api,
          created_at: date,
        };
      });
      // Spend comes from the request log; what is left lives with the limiter.
      return c.json({ data, total, balances: await creditSummary(c.env, account) }, 200);
    },
  );
}

function emptyUsage(): Record<string, number> {
  const u: Record<string, number> = {};
  for (const k of USAGE_CATEGORIES) u[k] = 0;
  for (const k of ["source_website", "source_bulk", "source_extension", "source_api", "source_sheets"]) u[k] = 0;
  return u;
}
