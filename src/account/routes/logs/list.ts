import { createRoute, z } from "@hono/zod-openapi";
import { and, count, desc, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { anyOf, db } from "../../../db/client.js";
import { requestLogs } from "../../../db/schema.js";
import type { ApiApp } from "../../../http/openapi.js";
import { ErrorResponses } from "../../../http/openapi-shared.js";
import { queryInt, queryIntOr } from "../../../http/validation.js";
import { retainedLogs } from "../../log-retention.js";
import { instant, LogEntry, logsDoc, renderLog } from "./shared.js";

export const LOGS_DEFAULT_PAGE_SIZE = 20;
export const LOGS_MAX_PAGE_SIZE = 100;

const Query = z.object({
  page: queryIntOr(1, { min: 1 }),
  limit: queryIntOr(LOGS_DEFAULT_PAGE_SIZE, { min: 1, max: LOGS_MAX_PAGE_SIZE }),
  type: z
    .string()
    .max(100)
    .optional()
    .openapi({ description: "Endpoint group label (e.g. 'Email Finder') or path (e.g. 'keys')" }),
  status_code: queryInt({ min: 100, max: 599 }),
  start: z.string().optional().openapi({ description: "RFC 3339 or YYYY-MM-DD, inclusive" }),
  end: z.string().optional().openapi({ description: "RFC 3339 or YYYY-MM-DD, inclusive" }),
});

const route = createRoute({
  method: "get",
  path: "/logs",
  ...logsDoc,
  summary: "Requests made with this account, newest first: the last 1,000 of the last 3 months (not rate-limited)",
  request: { query: Query },
  responses: {
    200: {
      description: "A page of log entries",
      content: {
        "application/json": {
          schema: z.object({
            data: z.array(LogEntry),
            meta: z.object({
              total: z.number().int(),
              pageSize: z.number().int(),
              current: z.number().int(),
              total_pages: z.number().int(),
            }),
          }),
        },
      },
    },
    ...ErrorResponses,
  },
});

export function registerListLogs(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const where: SQL[] = [await retainedLogs(c.env, c.get("auth").account.id, Date.now())];
    if (q.type) {
      const t = q.type.trim();
      const path = t.startsWith("/") ? t : `/v1/${t}`;
      where.push(
        anyOf(
          sql`lower(${requestLogs.type}) = lower(${t})`,
          eq(requestLogs.endpoint, path),
          sql`${requestLogs.endpoint} like ${`${path}/%`}`,
        ),
      );
    }
    if (q.status_code !== undefined) where.push(eq(requestLogs.statusCode, q.status_code));
    const start = instant("start", q.start);
    const end = instant("end", q.end, true);
    if (start !== undefined) where.push(gte(requestLogs.createdAt, start));
    if (end !== undefined) where.push(lte(requestLogs.createdAt, end));
    const store = db(c.env.DB);
    const [rows, [{ total }]] = await Promise.all([
      store
        .select()
        .from(requestLogs)
        .where(and(...where))
        .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
        .limit(q.limit)
        .offset((q.page - 1) * q.limit),
      store
        .select({ total: count() })
        .from(requestLogs)
        .where(and(...where)),
    ]);
    return c.json(
      {
        data: rows.map(renderLog),
        meta: { total, pageSize: q.limit, current: q.page, total_pages: Math.ceil(total / q.limit) },
      },
      200,
    );
  });
}
