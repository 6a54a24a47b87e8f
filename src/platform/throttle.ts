import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";

/**
 * Fixed-window counters for the doors that belong to no account: password guesses, device codes,
 * mailed links, sign-ups and agent enrollments per client address, paid agent calls per payer. One
 * Throttle object per subject (`ip:<address>`, a hashed email, a device code, a payer), so no single
 * object sees every attempt. Windows are decided on the object's own clock, and the object forgets
 * a window once it has run out (an alarm), so a subject seen once leaves nothing behind for long.
 */
interface Window {
  start: number;
  count: number;
  windowMs: number;
}

export interface SpendResult {
  allowed: boolean;
  remaining: number;
  /** Seconds until the window starts again (at least 1). */
  resetSeconds: number;
}

export class Throttle extends DurableObject<Env> {
  /** Spends one unit of `window` (`limit` per `windowMs`); refused, spending nothing, once used up. */
  async spend(window: string, limit: number, windowMs: number): Promise<SpendResult> {
    const now = Date.now();
    const key = `w:${window}`;
    const stored = this.ctx.storage.kv.get<Window>(key);
    const w = stored && now - stored.start < stored.windowMs ? stored : { start: now, count: 0, windowMs };
    const resetSeconds = Math.max(1, Math.ceil((w.start + w.windowMs - now) / 1000));
    if (w.count >= limit) return { allowed: false, remaining: 0, resetSeconds };
    w.count += 1;
    this.ctx.storage.kv.put(key, w);
    const ends = w.start + w.windowMs;
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm < ends) await this.ctx.storage.setAlarm(ends);
    return { allowed: true, remaining: limit - w.count, resetSeconds };
  }

  /** Forgets the windows that ran out; the object's storage is empty once all have. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [key, w] of this.ctx.storage.kv.list<Window>({ prefix: "w:" })) {
      if (now - w.start >= w.windowMs) this.ctx.storage.kv.delete(key);
      else next = Math.min(next, w.start + w.windowMs);
    }
    if (Number.isFinite(next)) await this.ctx.storage.setAlarm(next);
    else await this.ctx.storage.deleteAll();
  }
}

/** One budget an attempt spends from: `limit` attempts per `windowMs` in `window` of `subject`'s Throttle. */
export interface Budget {
  subject: string;
  window: string;
  limit: number;
  windowMs: number;
}

const throttleOf = (env: Env, subject: string) => env.THROTTLE.get(env.THROTTLE.idFromName(subject));

/** Counts one attempt against one budget (for a caller that shows what is left, e.g. rate-limit headers). */
export async function spendOne(env: Env, b: Budget): Promise<SpendResult> {
  return throttleOf(env, b.subject).spend(b.window, b.limit, b.windowMs);
}

/**
 * Counts one attempt against each budget in order; the seconds to wait when one is used up, else
 * null. One at a time: an attempt refused by an earlier budget does not use up the later ones.
 */
export async function spendAttempt(env: Env, budgets: readonly Budget[]): Promise<number | null> {
  for (const b of budgets) {
    const r = await spendOne(env, b);
    if (!r.allowed) return r.resetSeconds;
  }
  return null;
}
