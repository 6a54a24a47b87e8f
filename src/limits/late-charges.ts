import type { BalanceView, LateCharge, LateChargeOutcome } from "./account-limiter.js";
import type { CreditBalance } from "./groups.js";
import { ExpiringMap } from "../platform/expiring-map.js";

/**
 * When a credit-billed call may be answered before its account's limiter decides it (a "late
 * charge"), and how each such call learns the decision afterwards.
 *
 * Deciding a call before answering costs a round trip to the limiter on the request path, and
 * nothing needs deciding before the answer when the call cannot be refused: the plan sets no limit
 * in the call's group (pro-plus, scale; see admitUnlimited) and the account has far more credits
 * than the call costs. Repeat or billed only changes what is charged, not the answer, so the
 * limiter decides that afterwards, from the charge this isolate sends with its next round trip (or
 * within SETTLE_WAIT_MS), in the order calls were answered: two identical calls are still billed
 * once. A call found nothing is not sent at all (nothing to charge).
 *
 * "Far more" is LATE_CHARGE_MARGIN credits above the call's cost in the balance this isolate last
 * read from the limiter (at most CREDIT_VIEW_TTL_MS ago), less every charge it sent or queued since
 * that the limiter has not answered yet. Other isolates' calls meanwhile are what the margin covers;
 * near the end of a balance every call is admitted first again, so refusals stay exact. A late
 * charge is never taken beyond the balance left (the limiter caps it): at worst a call is free.
 */
export const LATE_CHARGE_MARGIN = 1_000;
export const CREDIT_VIEW_TTL_MS = 1_000;
const MAX_ACCOUNTS = 5_000;

type Amounts = Partial<Record<CreditBalance, number>>;

interface CreditView {
  plan: string;
  available: Partial<Record<CreditBalance, number>>;
}
const views = new ExpiringMap<number, CreditView>(MAX_ACCOUNTS);
/** Late charges of this isolate the limiter has not answered yet, per account: queued or in flight. */
const unanswered = new Map<number, Amounts>();

/** Remembers the balances the limiter answered with (after every charge it was sent so far was applied). */
export function rememberCredits(accountId: number, plan: string, balances: Record<CreditBalance, BalanceView>, now: number): void {
  const available: CreditView["available"] = {};
  for (const [balance, view] of Object.entries(balances) as [CreditBalance, BalanceView][]) available[balance] = view.available;
  views.set(accountId, { plan, available }, now);
}

/** True when a call costing `cost` may be answered now and charged later; it then counts as unanswered. */
export function mayChargeLater(accountId: number, plan: string, cost: Amounts, now: number): boolean {
  const view = freshView(accountId, plan, now);
  if (!view) return false;
  const pending = unanswered.get(accountId) ?? {};
  for (const [balance, amount] of Object.entries(cost) as [CreditBalance, number][]) {
    if ((view.available[balance] ?? 0) - (pending[balance] ?? 0) - amount < LATE_CHARGE_MARGIN) return false;
  }
  countUnanswered(accountId, cost, 1);
  return true;
}

/** The limiter answered (or will never answer) these charges: they no longer count against the view. */
export function chargesAnswered(accountId: number, charges: readonly LateCharge[]): void {
  for (const c of charges) countUnanswered(accountId, c.cost, -1);
}

/** True when this isolate read the account's balances recently enough to charge its calls late. */
export function creditViewFresh(accountId: number, plan: string, now: number): boolean {
  return freshView(accountId, plan, now) !== undefined;
}

function freshView(accountId: number, plan: string, now: number): CreditView | undefined {
  const view = views.get(accountId, now, CREDIT_VIEW_TTL_MS);
  return view?.plan === plan ? view : undefined;
}

/** Counts (1) or releases (-1) an amount of late charges not answered yet: a call that will send a charge of another cost, or none. */
export function countUnanswered(accountId: number, cost: Amounts, sign: 1 | -1): void {
  const pending = unanswered.get(accountId) ?? {};
  for (const [balance, amount] of Object.entries(cost) as [CreditBalance, number][]) pending[balance] = Math.max(0, (pending[balance] ?? 0) + sign * amount);
  if (Object.values(pending).some((n) => n > 0)) unanswered.set(accountId, pending);
  else unanswered.delete(accountId);
}

/**
 * One late charge waiting for the limiter's decision. Its call has ended by then, and the request
 * that sends the charge is usually another one: the decision is handed over as a plain value, and
 * whoever comes second (the decision, or the call asking for it) runs the follow-up in its own
 * request's context (a request may not settle a promise another request awaits).
 */
export class PendingCharge {
  private decided?: boolean;
  private followUp?: (billed: boolean) => Promise<unknown>;
  /** Sent once in a round trip that failed: not sent a third time. */
  resent = false;

  constructor(readonly charge: LateCharge) {}

  /** The limiter's decision (false when it could not be sent): runs the follow-up if one waits. */
  decide(billed: boolean): Promise<unknown> | undefined {
    this.decided = billed;
    const followUp = this.followUp;
    this.followUp = undefined;
    return followUp?.(billed);
  }

  /** Runs `followUp` with the decision: now if it is known (the promise is the caller's to await), else when it comes. */
  whenDecided(followUp: (billed: boolean) => Promise<unknown>): Promise<unknown> | undefined {
    if (this.decided !== undefined) return followUp(this.decided);
    this.followUp = followUp;
    return undefined;
  }
}

/** Hands each pending charge its decision; answers the follow-ups to await. */
export function handOut(pending: readonly PendingCharge[], outcome: LateChargeOutcome | undefined): Promise<unknown>[] {
  return pending.map((p, i) => p.decide(outcome?.billed[i] ?? false)).filter((p): p is Promise<unknown> => p !== undefined);
}
