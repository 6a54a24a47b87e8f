import { pruneSmtpChecks } from "../engine/verify/probe-gateway.js";
import type { Env } from "../env.js";
import { pruneBilledRequests } from "../limits/repeat-billing.js";
import { logInfo } from "../request-context.js";
import { pruneRequestLogs } from "./log-retention.js";

/**
 * The scheduled retention pass: the log window (1,000 rows, 3 months), closed 30-day billing windows
 * and SMTP answers older than SMTP_CACHE_SECONDS.
 */
export async function runRetention(env: Env, now: number): Promise<void> {
  const [logs, , smtp] = await Promise.all([
    pruneRequestLogs(env, now),
    pruneBilledRequests(env, now),
    pruneSmtpChecks(env, now),
  ]);
  if (logs.expired || logs.overflow)
    logInfo(`request log retention: ${logs.expired} expired, ${logs.overflow} beyond the last 1000 rows`);
  if (smtp) logInfo(`smtp cache retention: ${smtp} answers older than SMTP_CACHE_SECONDS deleted`);
}
