import type { PendingDecision } from "./billing-decision.js";
import type { ClientOptions } from "./client-options.js";
import type { RateGroup } from "./groups.js";
import { IsolateLease } from "./isolate-lease.js";
import { IsolateRateShare } from "./isolate-rate-share.js";
import type {
  AdmitRequest,
  AdmitResult,
  ChargeDecision,
  GroupCount,
  LateCharge,
  LimiterMessage,
  LimiterReply,
  Settlement,
  SettlementOutcome,
} from "./limiter-messages.js";

/**
 * One account's line to its limiter, in one isolate (limiter-client.ts): what waits to be sent
 * (admissions, settlements, late charges, counts, keep-alives), the one message in flight, and
 * the isolate's lease of that account's credits.
 */

export interface PendingAdmission {
  req: AdmitRequest;
  /** Its key is the caller's, shared with other requests (a bulk chunk's deliveries): never released for it. */
  shared: boolean;
  /**
   * `released`: its waiter looked gone (orphanMs) and what it was admitted went back; a waiter that
   * was only slow admits again rather than answer on a reservation given back.
   */
  outcome?: { result: AdmitResult } | { error: unknown } | { released: true };
  failures: number;
  /** The last time its waiter looked (a waiter gone leaves its reservation to be released). */
  seen: number;
  /**
   * Its waiter is awaiting a round trip it sent itself: however long that takes, the waiter is
   * there to take the answer (a request cancelled meanwhile never resumes; its reservation is then
   * left to the limiter's sweep rather than guessed gone).
   */
  sending: boolean;
}
export interface OwedSettlement {
  settlement: Settlement;
  decision: PendingDecision<SettlementOutcome>;
}
/** A call paid from a lease: the lease and the call's ticket in it. */
export interface LeasePaid {
  lease: IsolateLease;
  ticket: number;
}
export interface OwedCharge {
  charge: LateCharge;
  paid: LeasePaid | null;
  decision: PendingDecision<ChargeDecision>;
}
export interface Message {
  seq: number;
  admissions: PendingAdmission[];
  settlements: OwedSettlement[];
  charges: OwedCharge[];
  counts: GroupCount[];
  extend: string[];
  body: LimiterMessage;
  firstSent: number;
  sentAt: number;
  sending: boolean;
  failures: number;
}

/** One account's line to its limiter, in this isolate. */
export class AccountLine {
  admissions: PendingAdmission[] = [];
  settlements: OwedSettlement[] = [];
  charges: OwedCharge[] = [];
  counts: GroupCount[] = [];
  extend = new Set<string>();
  wantsBalances = false;
  inFlight: Message | null = null;
  nextSeq = 1;
  ackedSeq = 0;
  settleTimer = false;
  countTimer = false;
  /** Drains sending what the line owes now (between two of its round trips, none may be in flight). */
  draining = 0;
  /** When an admission was last queued on the line (this isolate's clock). */
  lastAdmission = 0;
  lease: IsolateLease | null = null;
  /** The limiter refused this isolate a lease (the balance is near its floor): not asked again before then. */
  noLeaseUntil = 0;
  /** This isolate's shares of the account's daily limits, by group (one ended after a refusal stays a while: none asked for before). */
  rateShares = new Map<RateGroup, IsolateRateShare>();
  constructor(
    readonly accountId: number,
    public plan: string,
  ) {}

  get idle(): boolean {
    return (
      !this.inFlight &&
      !this.admissions.length &&
      !this.settlements.length &&
      !this.charges.length &&
      !this.counts.length &&
      !this.extend.size &&
      !this.lease &&
      [...this.rateShares.values()].every((s) => s.ended)
    );
  }

  /** Something waits to be sent (the lease's top-up aside). */
  hasWaiting(): boolean {
    return !!(
      this.admissions.length ||
      this.settlements.length ||
      this.charges.length ||
      this.counts.length ||
      this.extend.size
    );
  }

  /** Queues an admission (its waiter looks at it from `now` on). */
  queue(req: AdmitRequest, shared: boolean, now: number): PendingAdmission {
    const admission: PendingAdmission = { req, shared, failures: 0, seen: now, sending: false };
    this.admissions.push(admission);
    this.lastAdmission = now;
    return admission;
  }

  /** The lease this isolate pays late-charged calls from (made on first use), null while the limiter refuses one. */
  leaseFor(options: ClientOptions, now: number): IsolateLease | null {
    if (this.lease && !this.lease.ended) return this.lease;
    if (now < this.noLeaseUntil) return null;
    this.lease = new IsolateLease(options.leaseCredits, options.leaseFloor, options.leaseUseMs, options.leaseCallMs);
    return this.lease;
  }

  /** The share of `group`'s daily limit (made on first use), null when shares are off or one was refused less than rateShareIdleMs ago. */
  rateShareFor(group: RateGroup, options: ClientOptions, now: number): IsolateRateShare | null {
    if (!options.rateShareUnits) return null;
    const share = this.rateShares.get(group);
    if (share && !share.ended) return share;
    if (share && now < share.noNewShareUntil) return null;
    const fresh = new IsolateRateShare(group, options.rateShareUnits, options.rateShareFloor, options.rateShareIdleMs);
    this.rateShares.set(group, fresh);
    return fresh;
  }

  /** The limiter's answer about the shares message `m` carried. */
  applyRateShares(m: Message, reply: LimiterReply, now: number): void {
    for (const state of reply.rateShares ?? [])
      for (const share of this.rateShares.values()) if (share.id === state.id) share.update(state, m.firstSent, now);
  }

  /** Everything waiting on the line, as one message; null when nothing waits. */
  nextMessage(now: number): Message | null {
    const lease = this.lease?.request(now);
    // Every share is looked at (an idle one is closed there), not only up to the first giving back.
    let giveBack = false;
    for (const share of this.rateShares.values()) if (share.givingBack(now)) giveBack = true;
    if (!this.hasWaiting() && !this.wantsBalances && !lease?.close && !giveBack) return null;
    const m: Message = {
      seq: this.nextSeq++,
      admissions: this.admissions.splice(0),
      settlements: this.settlements.splice(0),
      charges: this.charges.splice(0),
      counts: this.counts.splice(0),
      extend: [...this.extend],
      body: { plan: this.plan },
      firstSent: now,
      sentAt: now,
      sending: false,
      failures: 0,
    };
    this.extend.clear();
    const body = m.body;
    if (m.settlements.length) body.settlements = m.settlements.map((s) => s.settlement);
    if (m.charges.length) body.charges = m.charges.map((c) => c.charge);
    if (m.counts.length) body.counts = m.counts;
    if (m.admissions.length) body.admissions = m.admissions.map((a) => a.req);
    if (m.extend.length) body.extend = m.extend;
    if (lease) body.lease = lease;
    const shares = [...this.rateShares.values()].map((s) => s.request(now)).filter((r) => r !== undefined);
    if (shares.length) body.rateShares = shares;
    if (this.wantsBalances) body.withBalances = true;
    this.wantsBalances = false;
    return m;
  }
}
