import type { Env } from "../env.js";

/**
 * Fixed-window budgets on named limiter objects, for the guessable parts of the browser pages (device
 * codes, passwords, mailed links): each attempt spends one unit of every budget it falls under, and
 * the first budget used up refuses it. Each budget lives on its own object (`ip:<address>`, a
 * per-account or per-code name), so no single object sees every attempt.
 */
export interface Budget {
  /** Limiter object that counts it. */
  object: string;
  /** Window name on that object. */
  window: string;
  limit: number;
  windowMs: number;
}

const counter = (env: Env, name: string) => env.ACCOUNT_LIMITER.get(env.ACCOUNT_LIMITER.idFromName(name));

/** Spends one unit of each budget in order; the seconds to wait when one is used up, else null. */
export async function spendBudgets(env: Env, budgets: readonly Budget[], now = Date.now()): Promise<number | null> {
  // One at a time: an attempt refused by an earlier budget does not use up the later ones.
  for (const b of budgets) {
    const r = await counter(env, b.object).fixedWindow(b.window, b.limit, b.windowMs, now);
    if (!r.allowed) return r.resetSeconds;
  }
  return null;
}
