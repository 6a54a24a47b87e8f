import type { BalanceView, CreditBalance } from "./groups.js";
import { planFor } from "./plans.js";

export const BALANCES: readonly CreditBalance[] = ["search", "verification", "phone"];
export type Amounts = Partial<Record<CreditBalance, number>>;

/** The `credits` key of an account's limiter. */
export interface CreditState {
  /** UTC month (YYYY-MM) the `used` counts belong to; monthly allowances come from the plan. */
  month: string;
  /** Credits charged this month from the plan's allowance (what a pack paid is not in it). */
  used: Record<CreditBalance, number>;
  /** Credit pack: spent after the monthly allowance; while it has credits it raises the limits. */
  pack: { size: number; remaining: number } | null;
}

export const utcMonth = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const zero = (): Record<CreditBalance, number> => ({ search: 0, verification: 0, phone: 0 });

/**
 * One account's credits, as its limiter decides them. A credit is either available, held or
 * charged. Held credits (a running call's reservation, an isolate's lease) are set aside from the
 * balance but not charged: a hold that ends unused is simply released, and a hold that pays for an
 * answer is charged then, in the month that is current on the limiter's clock at that moment. So no
 * refund ever has to know which month or which pool a credit came from, and a message carrying an
 * earlier instant cannot move a month: the limiter's month only ever moves forward.
 *
 * Invariant: for every balance, held <= (allowance - used) + pack, so available is never negative
 * and every charge of held credits is covered.
 */
export class CreditBook {
  private held = zero();
  /** The part of `held` that isolates hold as leases (not shown as taken: see view). */
  private leased = zero();
  /** Set when the stored state changed and `credits` must be written with the decision. */
  dirty = false;

  constructor(private state: CreditState | undefined) {}

  /** The state of the month current at `now`; a month already left is never entered again. */
  current(now: number): CreditState {
    const month = utcMonth(now);
    this.state ??= { month, used: zero(), pack: null };
    const s = this.state;
    if (month > s.month) {
      s.month = month;
      s.used = zero();
      this.dirty = true;
    }
    return s;
  }

  /** Credits a new hold or charge may take: the allowance left and the pack, less what is held. */
  available(plan: string, balance: CreditBalance, now: number): number {
    const s = this.current(now);
    return (
      Math.max(0, planFor(plan).credits[balance] - s.used[balance]) + (s.pack?.remaining ?? 0) - this.held[balance]
    );
  }

  heldOf(balance: CreditBalance): number {
    return this.held[balance];
  }

  /** Sets credits aside (callers check available() first); `lease`: an isolate's lease. */
  hold(balance: CreditBalance, amount: number, lease = false): void {
    this.held[balance] += amount;
    if (lease) this.leased[balance] += amount;
  }

  release(balance: CreditBalance, amount: number, lease = false): void {
    this.held[balance] = Math.max(0, this.held[balance] - amount);
    if (lease) this.leased[balance] = Math.max(0, this.leased[balance] - amount);
  }

  /**
   * Charges credits (held ones released by the caller first): the monthly allowance first, then the
   * pack. A charge is recorded in full: credits held under one plan may be charged under another
   * (the account's plan changed in between), and what the allowance and the pack do not cover is
   * then counted as used all the same, never dropped.
   */
  charge(plan: string, balance: CreditBalance, amount: number, now: number): void {
    if (amount <= 0) return;
    const s = this.current(now);
    const allowanceLeft = Math.max(0, planFor(plan).credits[balance] - s.used[balance]);
    const fromPack = Math.min(s.pack?.remaining ?? 0, amount - Math.min(amount, allowanceLeft));
    s.used[balance] += amount - fromPack;
    if (s.pack) s.pack.remaining -= fromPack;
    this.dirty = true;
  }

  grantPack(credits: number, now: number): { size: number; remaining: number } {
    const s = this.current(now);
    const remaining = (s.pack?.remaining ?? 0) + credits;
    s.pack = { size: Math.max(s.pack?.size ?? 0, remaining), remaining };
    this.dirty = true;
    return s.pack;
  }

  pack(now: number): { size: number; remaining: number } | null {
    return this.current(now).pack;
  }

  /**
   * The balances as the account sees them: what is used this month and what is left. Credits an
   * isolate holds as a lease are shown as left (they are not spent; a lease is given back when its
   * isolate stops using it); a running call's reservation is not.
   */
  view(plan: string, now: number): Record<CreditBalance, BalanceView> {
    const s = this.current(now);
    const allowance = planFor(plan).credits;
    const out = {} as Record<CreditBalance, BalanceView>;
    for (const b of BALANCES)
      out[b] = {
        available: Math.max(0, this.available(plan, b, now) + this.leased[b]),
        used: s.used[b],
        allowance: allowance[b],
      };
    return out;
  }

  /** What `credits` stores; written only when dirty. */
  stored(): CreditState | undefined {
    return this.state;
  }
}
