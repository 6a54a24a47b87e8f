import type { Env } from "../env.js";
import { logError } from "../request-context.js";
import { pruneTokens } from "./account-records.js";
import { pruneSessions } from "./session.js";

/** The hourly cron's share of the dashboard: sessions and mailed links past their expiry are deleted. */
export async function pruneDashboard(env: Env, now: number): Promise<void> {
  await Promise.all([pruneSessions(env.DB, now), pruneTokens(env.DB, now)]).catch((err) =>
    logError("dashboard: pruning sessions and tokens failed", err),
  );
}
