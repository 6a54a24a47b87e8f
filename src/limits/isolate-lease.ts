import { type Amounts, BALANCES } from "./credit-book.js";
import type { CreditBalance } from "./groups.js";
import type { LeaseRequest, LeaseState } from "./limiter-messages.js";

/**
 * Credits this isolate holds for one account (a lease drawn from its limiter), so that a call that
 * cannot be refused otherwise (the plan has no limit in its group) is answered without a round
 * trip and charged after: every such answer is paid from credits the limiter already set aside, so
 * however many isolates answer at once, none answers beyond the balance.
 *
 * `held` is what the limiter said the lease holds (after every charge it was sent); `unreported`
 * what this isolate spent from it since, in calls whose charge the limiter has not answered yet
 * (running, waiting to be sent, or in flight). What may still be spent is held - unreported. An
 * isolate that dies loses at most what it spent and never reported: never more than the lease.
 */
export class IsolateLease {
  readonly id = crypto.randomUUID();
  /** Top-ups sent so far (the limiter applies each sequence number once). */
  private seq = 0;
  private held: Amounts = {};
  private unreported: Amounts = {};
  /** Calls in flight or whose charge is unanswered: the lease is given back only once there are none. */
  private outstanding = 0;
  /** Spent only until then (this isolate's clock, counted from the send of the top-up that renewed it). */
  private usableUntil = 0;
  /** The limiter refused a top-up (near the end of a balance) or ended it: no new spending; given back when idle. */
  private closing = false;
  /** Balances the calls paid from it use. */
  private readonly balances = new Set<CreditBalance>();

  constructor(
    private readonly credits: number,
    private readonly floor: number,
    private readonly useMs: number,
  ) {}

  /** Takes `cost` for a call about to be answered; false when the lease cannot pay it (the call is admitted first instead). */
  take(cost: Amounts, now: number): boolean {
    for (const b of Object.keys(cost) as CreditBalance[]) this.balances.add(b);
    if (this.closing || now >= this.usableUntil) return false;
    for (const [b, n] of Object.entries(cost) as [CreditBalance, number][])
      if ((this.held[b] ?? 0) - (this.unreported[b] ?? 0) < n) return false;
    add(this.unreported, cost, 1);
    this.outstanding += 1;
    return true;
  }

  /** The call found nothing: it sends no charge, and its credits may be spent again. */
  giveBack(cost: Amounts): void {
    add(this.unreported, cost, -1);
    this.outstanding -= 1;
  }

  /** The limiter answered the charge of a call paid from this lease (its reply carries the lease's new `held`). */
  answered(cost: Amounts): void {
    add(this.unreported, cost, -1);
    this.outstanding -= 1;
  }

  /** What to send with the next round trip: a top-up (every round trip while open), or the lease given back once idle. */
  request(): LeaseRequest | undefined {
    if (this.closing) return this.outstanding === 0 ? { id: this.id, seq: this.seq, close: true } : undefined;
    const want: Amounts = {};
    for (const b of this.balances) {
      const left = (this.held[b] ?? 0) - (this.unreported[b] ?? 0);
      if (left < this.credits) want[b] = this.credits - left;
    }
    this.seq += 1;
    return { id: this.id, seq: this.seq, want, floor: this.floor };
  }

  /** The limiter's answer to a round trip that carried request(), sent (first) at `sentAt`. */
  update(state: LeaseState, sentAt: number, sent: LeaseRequest): void {
    if (!state.open) {
      this.closing = true;
      this.held = {};
      return;
    }
    this.held = { ...state.held };
    if (state.refused.length) this.closing = true;
    else if (sent.seq === this.seq && !sent.close) this.usableUntil = sentAt + this.useMs;
  }

  /** Ended on the limiter's side (closed or released): nothing to send for it any more. */
  get ended(): boolean {
    return this.closing && this.outstanding === 0 && Object.values(this.held).every((n) => !n);
  }

  /** What it may still pay, per balance (tests, the bench). */
  spendable(): Amounts {
    const out: Amounts = {};
    for (const b of BALANCES) if (this.held[b] !== undefined) out[b] = (this.held[b] ?? 0) - (this.unreported[b] ?? 0);
    return out;
  }
}

function add(into: Amounts, from: Amounts, sign: 1 | -1) {
  for (const [b, n] of Object.entries(from) as [CreditBalance, number][])
    into[b] = Math.max(0, (into[b] ?? 0) + sign * n);
}
