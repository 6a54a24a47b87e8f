import { type Amounts, BALANCES } from "./credit-book.js";
import type { CreditBalance } from "./groups.js";
import type { LeaseRequest, LeaseState } from "./limiter-messages.js";

/**
 * A call paid from a lease whose charge is not sent this long after it took its credits never gave
 * its answer (its request's deadline, 180 s, came first, or its report was never asked): its
 * credits may be spent again, and a charge that still comes is charged from the balance.
 */
export const LEASE_CALL_MS = 200_000;
/** How long after a top-up sent an isolate may still pay calls from its lease (ClientOptions.leaseUseMs). */
export const LEASE_USE_MS = 10_000;
/**
 * The limiter keeps a lease this long after its last top-up or charge (then releases it: its isolate
 * died or went quiet). Longer than an isolate may pay from it after a top-up (LEASE_USE_MS) plus the
 * longest a call it paid may take to send its charge (LEASE_CALL_MS), with 30 s for the charge's
 * round trip: a slow call's charge finds its lease.
 */
export const LEASE_TTL_MS = LEASE_USE_MS + LEASE_CALL_MS + 30_000;

/** A call paid from a lease, until its charge is sent (or it found nothing). */
interface LeaseCall {
  cost: Amounts;
  at: number;
  sent: boolean;
}

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
  /** Calls running or whose charge is unanswered, by ticket: the lease is given back only once there are none. */
  private readonly calls = new Map<number, LeaseCall>();
  private nextTicket = 1;
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
    private readonly callMs = LEASE_CALL_MS,
  ) {}

  /**
   * Takes `cost` for a call about to be answered: answers its ticket, or null when the lease cannot
   * pay it (the call is admitted first instead).
   */
  take(cost: Amounts, now: number): number | null {
    this.forgetUnsent(now);
    for (const b of Object.keys(cost) as CreditBalance[]) this.balances.add(b);
    if (this.closing || now >= this.usableUntil) return null;
    for (const [b, n] of Object.entries(cost) as [CreditBalance, number][])
      if ((this.held[b] ?? 0) - (this.unreported[b] ?? 0) < n) return null;
    add(this.unreported, cost, 1);
    const ticket = this.nextTicket++;
    this.calls.set(ticket, { cost, at: now, sent: false });
    return ticket;
  }

  /** The call's charge goes to the limiter now, from this lease: true unless its ticket was forgotten (LEASE_CALL_MS). */
  send(ticket: number): boolean {
    const call = this.calls.get(ticket);
    if (call) call.sent = true;
    return call !== undefined;
  }

  /**
   * The call found nothing (its credits may be spent again), or the limiter answered its charge
   * (its reply carries the lease's new `held`): the ticket ends.
   */
  end(ticket: number): void {
    const call = this.calls.get(ticket);
    if (!call) return;
    this.calls.delete(ticket);
    add(this.unreported, call.cost, -1);
  }

  /** Calls that never sent their charge within callMs of taking their credits never gave their answer. */
  private forgetUnsent(now: number): void {
    for (const [ticket, call] of this.calls) if (!call.sent && now - call.at >= this.callMs) this.end(ticket);
  }

  /** What to send with the next round trip: a top-up (every round trip while open), or the lease given back once idle. */
  request(now: number): LeaseRequest | undefined {
    this.forgetUnsent(now);
    if (this.closing) return this.calls.size === 0 ? { id: this.id, seq: this.seq, close: true } : undefined;
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
    return this.closing && this.calls.size === 0 && Object.values(this.held).every((n) => !n);
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
