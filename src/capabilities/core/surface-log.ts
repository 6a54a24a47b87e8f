import type { Env } from "../../env.js";
import { loggedUri } from "../../platform/log-uri.js";
import {
  enqueueLogRow,
  insertLogRows,
  type RequestLogMessage,
  type RequestLogRow,
} from "../../platform/request-log-queue.js";
import { currentLogRowId, logError } from "../../request-context.js";
import type { Execution, Invocation } from "./invocation.js";
import type { Capability } from "./registry.js";

/**
 * Log rows for capability calls that do not pass the /v1 request logger: agent-surface calls (on
 * the shared agents account) and bulk jobs' rows (on the job's account). `source` tells them
 * apart from API calls in /v1/logs. Written off the response path.
 */
export function logSurfaceCall(
  inv: Invocation,
  cap: Capability,
  params: Record<string, unknown>,
  execution: Execution,
  durationMs: number,
): void {
  const status = execution.response.status;
  const createdAt = Date.now();
  const requestId = currentLogRowId();
  // Written from the limiter's billing decision, by whichever request receives it.
  const written = execution.billing.whenDecided((billed) =>
    enqueueLogRow(inv.env, {
      ...surfaceLogRow(inv, cap, params, { status, billed, durationMs }),
      createdAt,
      requestId,
    }).catch((err) => logError("request log write failed", err)),
  );
  if (written) inv.waitUntil(written);
}

/** One call's log row (what logSurfaceCall sends, and what a bulk chunk sends in one batch). */
export function surfaceLogRow(
  inv: Pick<Invocation, "accountId" | "surface">,
  cap: Capability,
  params: Record<string, unknown>,
  call: { status: number; billed: boolean; durationMs: number },
): RequestLogRow {
  const source = inv.surface === "agent" ? "agent" : "bulk";
  const endpoint = inv.surface === "agent" && cap.agentPath ? cap.agentPath : `/v1${cap.paths[0]}`;
  // Masked as /v1 rows are: the params are the capability's own (declared), their values personal.
  const url = new URL(endpoint, "https://log.invalid");
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
  return {
    accountId: inv.accountId,
    actorAccountId: inv.accountId,
    apiKeyId: null,
    httpMethod: "GET",
    endpoint,
    uri: loggedUri(url, Object.keys(params)),
    statusCode: call.status,
    durationMs: Math.max(0, Math.round(call.durationMs)),
    type: cap.label,
    usageCategory: call.billed ? cap.usageCategory : null,
    cost: call.billed,
    source,
    ipAddress: null,
    userAgent: null,
    country: null,
    createdAt: Date.now(),
    requestId: currentLogRowId(),
  };
}

// A queue batch carries at most 100 messages (and 256 KB; a log row is well under 1 KB).
const SEND_BATCH = 100;

/** Many log rows in one queue send per 100 (a bulk chunk's rows), falling back to a direct D1 write. */
export async function logSurfaceCalls(env: Env, rows: RequestLogRow[]): Promise<void> {
  // Outside a request (a queue batch) there is no request id: each row gets its own.
  const messages: RequestLogMessage[] = rows.map((row) => ({
    ...row,
    requestId: row.requestId ?? crypto.randomUUID(),
  }));
  for (let i = 0; i < messages.length; i += SEND_BATCH) {
    const slice = messages.slice(i, i + SEND_BATCH);
    if (!env.REQUEST_LOGS) {
      await insertLogRows(env, slice);
      continue;
    }
    try {
      await env.REQUEST_LOGS.sendBatch(slice.map((body) => ({ body })));
    } catch (err) {
      logError("request-logs queue batch send failed; writing the rows directly", err);
      await insertLogRows(env, slice);
    }
  }
}
