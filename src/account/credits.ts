import { and, eq, gte, sql } from "drizzle-orm";
import { db } from "../db/client.js";
import { type Account, requestLogs } from "../db/schema.js";
import type { Env } from "../env.js";
import { planFor } from "../limits/plans.js";

export interface Balance {
  available: number;
  used: number;
}
export type CreditSummary = Record<"search" | "verification" | "phone", Balance>;

const CATEGORY_BALANCE: Record<string, keyof CreditSummary> = { search: "search", verifier: "verification", phones: "phone" };

/** Credit balances for the current month: plan allowance minus charged requests. */
export async function creditSummary(env: Env, account: Account, now = Date.now()): Promise<CreditSummary> {
  const plan = planFor(account.plan);
  const d = new Date(now);
  const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const rows = await db(env.DB)
    .select({ category: requestLogs.usageCategory, n: sql<number>`count(*)` })
    .from(requestLogs)
    .where(and(eq(requestLogs.accountId, account.id), eq(requestLogs.cost, true), gte(requestLogs.createdAt, monthStart)))
    .groupBy(requestLogs.usageCategory);
  const used = { search: 0, verification: 0, phone: 0 };
  for (const r of rows) {
    const balance = r.category ? CATEGORY_BALANCE[r.category] : undefined;
    if (balance) used[balance] += Number(r.n);
  }
  const bal = (k: keyof CreditSummary): Balance => ({ available: Math.max(0, plan.credits[k] - used[k]), used: used[k] });
  return { search: bal("search"), verification: bal("verification"), phone: bal("phone") };
}
