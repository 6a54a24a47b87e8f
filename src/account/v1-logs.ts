import { z } from "@hono/zod-openapi";
import { and, count, desc, eq, gte, lte, or, sql, type SQL } from "drizzle-orm";
import { db } from "../db/client.js";
import { requestLogs, type RequestLog } from "../db/schema.js";
import { ApiError } from "../http/errors.js";
import { type ApiApp, type Ctx, defineRoute, input } from "../http/openapi.js";
import { parseInstant, rfc3339 } from "../http/time.js";
import { queryInt, queryIntOr } from "../http/validation.js";
import { ErrorResponses, security } from "./openapi-shared.js";
import { logTypeOf, retainedLogs } from "./log-retention.js";

export const LOGS_DEFAULT_PAGE_SIZE = 20;
export const LOGS_MAX_PAGE_SIZE = 100;

const Query = z.object({
  page: queryIntOr(1, { min: 1 }),
  limit: queryIntOr(LOGS_DEFAULT_PAGE_SIZE, { min: 1, max: LOGS_MAX_PAGE_SIZE }),
  type: z.string().max(100).optional().openapi({ description: "Endpoint group label (e.g. 'Email Finder') or path (e.g. 'keys')" }),
  status_code: queryInt({ min: 100, max: 599 }),
  start: z.string().optional().openapi({ description: "RFC 3339 or YYYY-MM-DD, inclusive" }),
  end: z.string().optional().openapi({ description: "RFC 3339 or YYYY-MM-DD, inclusive" }),
});

const LogEntry = z
  .object({
    id: z.number().int(),
    type: z.string().openapi({ description: "Endpoint group, e.g. 'Email Finder', 'Keys', 'Account'" }),
    endpoint: z.string(),
    uri: z.string(),
    http_method: z.string(),
    status_code: z.number().int(),
    duration_ms: z.number().int(),
    api_key_id: z.number().int().nullable(),
    ip_address: z.string().nullable(),
    user_agent: z.string().nullable(),
    country: z.string().nullable(),
    source: z.enum(["API", "Agent", "Bulk"]).openapi({ description: "API: a /v1 call; Agent: the paid agent surface; Bulk: a row of a bulk job" }),
    cost: z.boolean(),
    created_at: z.string(),
  })
  .openapi("LogEntry");

const SOURCE_LABELS = { api: "API", agent: "Agent", bulk: "Bulk" } as const;

function renderLog(l: RequestLog) {
  return {
    id: l.id,
    type: l.type ?? logTypeOf(l.endpoint),
    endpoint: l.endpoint,
    uri: l.uri,
    http_method: l.httpMethod,
    status_code: l.statusCode,
    duration_ms: l.durationMs,
    api_key_id: l.apiKeyId,
    ip_address: l.ipAddress,
    user_agent: l.userAgent,
    country: l.country,
    source: SOURCE_LABELS[l.source],
    cost: l.cost,
    created_at: rfc3339(l.createdAt)!,
  };
}

function instant(name: string, text: string | undefined, endOfDay = false): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseInstant(text);
  if (ms === null) throw new ApiError(400, "params_invalid", `The parameter '${name}' is invalid: expected YYYY-MM-DD or RFC 3339.`);
  return endOfDay && /^\d{4}-\d{2}-\d{2}$/.test(text) ? ms + 86_399_999 : ms;
}

export function registerLogRoutes(v1: ApiApp) {
  defineRoute(
    v1,
    {
      method: "get",
      path: "/logs",
      tags: ["Account"],
      security,
      summary: "Requests made with this account, newest first: the last 1,000 of the last 3 months (not rate-limited)",
      request: { query: Query },
      responses: {
        200: {
          description: "A page of log entries",
          content: {
            "application/json": {
              schema: z.object({
                data: z.array(LogEntry),
                meta: z.object({ total: z.number().int(), pageSize: z.number().int(), current: z.number().int(), total_pages: z.number().int() }),
              }),
            },
          },
        },
        ...ErrorResponses,
      },
    },
    async (c: Ctx) => {
      const q = input<z.infer<typeof Query>>(c, "query");
      const where: SQL[] = [await retainedLogs(c.env, c.get("auth").account.id, Date.now())];
      if (q.type) {
        const t = q.type.trim();
        const path = t.startsWith("/") ? t : `/v1/${t}`;
        where.push(or(sql`lower(${requestLogs.type}) = lower(${t})`, eq(requestLogs.endpoint, path), sql`${requestLogs.endpoint} like ${`${path}/%`}`)!);
      }
      if (q.status_code !== undefined) where.push(eq(requestLogs.statusCode, q.status_code));
      const start = instant("start", q.start);
      const end = instant("end", q.end, true);
      if (start !== undefined) where.push(gte(requestLogs.createdAt, start));
      if (end !== undefined) where.push(lte(requestLogs.createdAt, end));
      const store = db(c.env.DB);
      const [rows, [{ total }]] = await Promise.all([
        store.select().from(requestLogs).where(and(...where)).orderBy(desc(requestLogs.createdAt), desc(requestLogs.id)).limit(q.limit).offset((q.page - 1) * q.limit),
        store.select({ total: count() }).from(requestLogs).where(and(...where)),
      ]);
      return c.json(
        { data: rows.map(renderLog), meta: { total, pageSize: q.limit, current: q.page, total_pages: Math.ceil(total / q.limit) } },
        200,
      );
    },
  );

  defineRoute(
    v1,
    {
      method: "get",
      path: "/logs/{id}",
      tags: ["Account"],
      security,
      summary: "One log entry",
      request: { params: z.object({ id: z.coerce.number().int().min(1).openapi({ param: { name: "id", in: "path" } }) }) },
      responses: { 200: { description: "Log entry", content: { "application/json": { schema: z.object({ data: LogEntry }) } } }, ...ErrorResponses },
    },
    async (c: Ctx) => {
      const { id } = input<{ id: number }>(c, "param");
      const [row] = await db(c.env.DB)
        .select()
        .from(requestLogs)
        .where(and(eq(requestLogs.id, id), await retainedLogs(c.env, c.get("auth").account.id, Date.now())))
        .limit(1);
      if (!row) throw new ApiError(404, "unknown_record", `No log entry with id ${id} on this account.`);
      return c.json({ data: renderLog(row) }, 200);
    },
  );
}
