import { enqueueLogRow } from "../../account/request-log-queue.js";
import type { Capability } from "./registry.js";
import type { Execution, Invocation } from "./invocation.js";
import { currentLogRowId, logError } from "../../request-context.js";

/**
 * Log rows for capability calls that do not pass the /v1 request logger: agent-surface calls (on
 * the shared agents account) and bulk jobs' rows (on the job's account). `source` tells them
 * apart from API calls in /v1/logs. Written off the response path.
 */
export function logSurfaceCall(inv: Invocation, cap: Capability, params: Record<string, unknown>, execution: Execution, durationMs: number): void {
  const source = inv.surface === "agent" ? "agent" : "bulk";
  const endpoint = inv.surface === "agent" && cap.agentPath ? cap.agentPath : `/v1${cap.paths[0]}`;
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") query.set(k, String(v));
  const row = {
    accountId: inv.accountId,
    actorAccountId: inv.accountId,
    apiKeyId: null,
    httpMethod: "GET",
    endpoint,
    uri: query.size ? `${endpoint}?${query}` : endpoint,
    statusCode: execution.response.status,
    durationMs: Math.max(0, Math.round(durationMs)),
    type: cap.label,
    usageCategory: execution.billed ? cap.usageCategory : null,
    cost: execution.billed,
    source,
    ipAddress: null,
    userAgent: null,
    country: null,
    createdAt: Date.now(),
    requestId: currentLogRowId(),
  } as const;
  inv.waitUntil(enqueueLogRow(inv.env, row).catch((err) => logError("request log write failed", err)));
}
