import type { Account } from "../db/schema.js";
import type { Env } from "../env.js";
import type { BalanceView } from "../limits/account-limiter.js";
import { limiterFor } from "../limits/admission.js";

export type CreditSummary = Record<"search" | "verification" | "phone", BalanceView>;

/** Credit balances live with the rate-limit counters in the account's limiter. */
export async function creditSummary(env: Env, account: Account, known?: CreditSummary): Promise<CreditSummary> {
  // Already answered by this request's admission (no second round trip to the limiter).
  if (known) return known;
  return (await limiterFor(env, account.id).balances(account.plan)) as CreditSummary;
}
