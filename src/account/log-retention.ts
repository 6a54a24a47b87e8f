import { desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { allOf, anyOf, db } from "../db/client.js";
import { requestLogs } from "../db/schema.js";
import type { Env } from "../env.js";

/**
 * What /v1/logs keeps (docs/wire-contract.md §9.3): the last 1,000 requests of the last 3 months, per account.
 * Serving applies the window on every read, so an entry past it is never shown; the rows
 * themselves are deleted by `pruneRequestLogs` from the scheduled handler, never on a request.
 */
export const LOG_RETENTION_ROWS = 1_000;
export const LOG_RETENTION_MONTHS = 3;

/** The same instant 3 calendar months earlier (UTC). */
export function retentionCutoff(now: number): number {
  const d = new Date(now);
  d.setUTCMonth(d.getUTCMonth() - LOG_RETENTION_MONTHS);
  return d.getTime();
}

/**
 * Conditions selecting the account's retained entries: newer than 3 months and among its last
 * 1,000 (the 1,000th newest row is found through the account/created_at index).
 */
export async function retainedLogs(env: Pick<Env, "DB">, accountId: number, now: number): Promise<SQL> {
  const cutoff = retentionCutoff(now);
  const mine = allOf(eq(requestLogs.accountId, accountId), gte(requestLogs.createdAt, cutoff));
  const [oldestKept] = await db(env.DB)
    .select({ createdAt: requestLogs.createdAt, id: requestLogs.id })
    .from(requestLogs)
    .where(mine)
    .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
    .limit(1)
    .offset(LOG_RETENTION_ROWS - 1);
  if (!oldestKept) return mine;
  const notOlder = anyOf(
    sql`${requestLogs.createdAt} > ${oldestKept.createdAt}`,
    allOf(eq(requestLogs.createdAt, oldestKept.createdAt), gte(requestLogs.id, oldestKept.id)),
  );
  return allOf(mine, notOlder);
}

/** Deletes what the window no longer covers: rows older than 3 months, and each account's rows beyond its last 1,000. */
export async function pruneRequestLogs(
  env: Pick<Env, "DB">,
  now: number,
): Promise<{ expired: number; overflow: number }> {
  const store = db(env.DB);
  const expired = await store
    .delete(requestLogs)
    .where(lt(requestLogs.createdAt, retentionCutoff(now)))
    .run();
  const overflow = await env.DB.prepare(
    `DELETE FROM request_logs WHERE id IN (
       SELECT id FROM (
         SELECT id, ROW_NUMBER() OVER (PARTITION BY account_id ORDER BY created_at DESC, id DESC) AS n FROM request_logs
       ) WHERE n > ?1
     )`,
  )
    .bind(LOG_RETENTION_ROWS)
    .run();
  return { expired: expired.meta.changes ?? 0, overflow: overflow.meta.changes ?? 0 };
}

/** The label of /v1/leads/attributes/…, which the first path segment alone would call "Leads". */
const ATTRIBUTES_TYPE = "Attributes";

/** Labels of the account routes, by first path segment; capabilities set their own ("Email Finder"). */
export const ROUTE_TYPES: Record<string, string> = {
  me: "Account",
  keys: "Keys",
  logs: "Logs",
  usage: "Usage",
  "rate-limits": "Rate Limits",
  leads: "Leads",
  leads_lists: "Leads Lists",
  attributes: ATTRIBUTES_TYPE,
  bulk: "Bulk",
  flag: "Flags",
  webhooks: "Webhooks",
  reveal: "Reveal Search",
  oauth: "OAuth",
};

/** `type` of a log entry from its route pattern: always a string (docs/wire-contract.md §9.3). */
export function logTypeOf(endpoint: string): string {
  const segments = endpoint
    .replace(/^\/v1(?=\/|$)/, "")
    .split("/")
    .filter(Boolean);
  if (segments[0] === "leads" && segments[1] === "attributes") return ATTRIBUTES_TYPE;
  const first = segments[0] ?? "";
  if (ROUTE_TYPES[first]) return ROUTE_TYPES[first];
  if (!first) return "API";
  return first
    .split(/[-_]/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");
}
