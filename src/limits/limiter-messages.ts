import type { Amounts } from "./credit-book.js";
import type { BalanceView, CreditBalance, RateGroup } from "./groups.js";
import type { Limits } from "./rate-table.js";

/**
 * What an isolate sends its account's limiter and what it answers (AccountLimiter.exchange, one
 * storage transaction per message). Every item is harmless sent twice: docs/billing.md lists how.
 */

export type RefusalReason = "rps" | "rpm" | "daily" | "credits";

export interface LimitSnapshot {
  limits: Limits;
  secondLeft: number;
  minuteLeft: number;
  dailyLeft: number;
  minuteResetSeconds: number;
  dailyResetSeconds: number;
}

/** One distinct credit-billed request of an admission and what it costs when it is not a repeat. */
export interface BilledRequest {
  /** requestFingerprint (src/limits/repeat-billing.ts): capability and normalised parameters. */
  fingerprint: string;
  cost: Amounts;
}

/** Where a billed call came from, as /v1/usage counts it (source_api, source_website, source_bulk). */
export type BillingSource = "api" | "website" | "bulk";

/** Requests under the 30-day rule (docs/wire-contract.md §3.2), decided by the admission that carries them. */
export interface Billing {
  accountId: number;
  capability: string;
  source: BillingSource;
  requests: BilledRequest[];
}

export interface AdmitRequest {
  /**
   * Idempotency key: an admission sent again under the same key is answered as the first time
   * (nothing counted or reserved twice). Its reservations are named after it (`<key>.<balance>`).
   */
  key?: string;
  plan: string;
  group: RateGroup | null;
  /** Credits to reserve per balance (base cost plus options), empty when free. */
  cost: Amounts;
  /** Also answer the credit balances after this admission (GET /v1/me shows them: no second round trip). */
  withBalances?: boolean;
  /**
   * Credit-billed requests: each one with an open 30-day window is a repeat (reserves nothing);
   * the others are reserved at their cost, on top of `cost`, and their windows open at once, tied
   * to the reservation, so an identical request arriving before this call ends is a repeat too.
   */
  billing?: Billing;
  /**
   * Reserve the billed requests one by one, in order, while the balance covers them, and answer the
   * others as refused (a bulk chunk runs what its credits pay for, exactly). `cost` must be empty.
   */
  partial?: boolean;
}

/**
 * Requests an isolate admitted itself in groups without limits (the plan has none there): counted
 * late, so GET /v1/rate-limits shows them as used. No decision depends on them.
 */
export interface GroupCount {
  group: RateGroup;
  /** The isolate's instant of the request: a count from a UTC day already over is dropped. */
  at: number;
  /** A count sent again under the same key is counted once (while the limiter remembers it). */
  key?: string;
}

/** One billed request of a settlement covering many (a bulk chunk's). */
export interface SettlementPart {
  fingerprint: string;
  /** What its answer costs. */
  cost: Amounts;
  /** What was reserved for it (its base price and the options priced up front). */
  reserved: Amounts;
}

/** The end of one earlier call: refund (nothing found) or charge (found). */
export interface Settlement {
  reservationIds: string[];
  found: boolean;
  /** Found: what the answer costs beyond (positive) or below (negative) what was reserved. */
  adjust: Amounts;
  /**
   * The fingerprints, among those this call's admission opened windows for, that were billed: their
   * windows stay open, the others close. Undefined keeps them all when found. Not found closes all.
   * Sent again after its reservations are gone, the settlement is answered from the windows kept.
   */
  billed?: readonly string[];
  /** Instead of `billed` and `adjust`: the requests billed and what each costs (see SettlementPart). */
  parts?: readonly SettlementPart[];
}

/** What a settlement decided: the windows kept (billed), when, and the credits charged. */
export interface SettlementOutcome {
  billed: string[];
  /** The instant the kept windows opened (the charge's), null when none was kept. */
  at: number | null;
  /** Credits charged in all; null when the settlement had been applied before (answered from the windows). */
  charged: Amounts | null;
  /** With `parts`: what each part was charged. */
  parts?: Amounts[];
  /** Applied before: per fingerprint sent (`parts`, else `billed`), what it was charged ({} when not billed, null when unknown). */
  replayed?: (Amounts | null)[];
}

/**
 * A credit-billed call answered before the limiter decided it (admission.ts: a plan without limits
 * in the call's group, paid from its isolate's lease): the limiter now tells a repeat from a billed
 * request and charges the latter, from the lease when it still holds the credits, else from the
 * balance if it covers the cost, else not at all (the call is then reported not billed).
 */
export interface LateCharge {
  /** Names the charge: sent again, it is answered from the window it kept (or decided now if it kept none). */
  key: string;
  /** The lease the isolate paid it from, null when none. */
  lease: string | null;
  accountId: number;
  capability: string;
  source: BillingSource;
  fingerprint: string;
  cost: Amounts;
}

export interface ChargeDecision {
  billed: boolean;
  /** When billed: the instant its window opened. */
  at: number | null;
}

/** Credits an isolate asks to hold, or gives back (see Lease). */
export interface LeaseRequest {
  id: string;
  /** Top-up number, increasing per lease; a top-up already applied is not applied again. */
  seq: number;
  /** Credits to add per balance, each granted only if `floor` credits stay available after it. */
  want?: Amounts;
  floor?: number;
  /** Give back everything the lease still holds and end it. */
  close?: boolean;
}

export interface LeaseState {
  id: string;
  /** Credits the lease holds now (what the isolate may still spend, less what it has not reported). */
  held: Amounts;
  /** False when the lease is gone (closed, or released by the sweep): the isolate stops using it. */
  open: boolean;
  /** Balances the top-up asked for that were not granted (the balance is near its floor). */
  refused: CreditBalance[];
}

/**
 * A share of a group's daily limit an isolate asks for, tops up or gives back (rate-share-book.ts;
 * the isolate's side is isolate-rate-share.ts). The units are counted used at the limiter when
 * granted, so calls answered from them need no round trip and are never counted twice.
 */
export interface RateShareRequest {
  id: string;
  group: RateGroup;
  /** Top-up number, increasing per share; a top-up already applied is not applied again. */
  seq: number;
  /** Units to add, granted only if `floor` requests of the day stay left after them. */
  want?: number;
  floor?: number;
  /** Give back what was not spent and end the share (`spent`: requests answered from it in all). */
  close?: boolean;
  spent?: number;
}

export interface RateShareState {
  id: string;
  /** False when the share is over (given back, its day ended, or unknown): the isolate stops using it. */
  open: boolean;
  /** Units granted to it in all (each counted used in the group's daily counter of its day). */
  units: number;
  /** Milliseconds from this decision to the end of the share's UTC day (the limiter's clock). */
  msLeft: number;
  /** Requests of the day left at the limiter after this decision (the daily limit less every count, shares included). */
  left: number;
  /** The top-up asked for was not granted (the day is near its limit, or the group has more than a daily limit). */
  refused: boolean;
}

/** Everything an isolate sends the limiter in one round trip (see limiter-client.ts). */
export interface LimiterMessage {
  plan: string;
  settlements?: Settlement[];
  charges?: LateCharge[];
  counts?: GroupCount[];
  admissions?: AdmitRequest[];
  lease?: LeaseRequest;
  rateShares?: RateShareRequest[];
  /** Reservations of running calls to keep alive (a bulk chunk running longer than RESERVATION_TTL_MS). */
  extend?: string[];
  /** Answer the balances after this message. */
  withBalances?: boolean;
}

export interface LimiterReply {
  settlements: SettlementOutcome[];
  charges: ChargeDecision[];
  admissions: AdmitResult[];
  lease?: LeaseState;
  rateShares?: RateShareState[];
  balances?: Record<CreditBalance, BalanceView>;
}

export type AdmitResult =
  | {
      admitted: true;
      reservationIds: string[];
      snapshot: LimitSnapshot | null;
      balances?: Record<CreditBalance, BalanceView>;
      /**
       * With `billing`: the requests that are repeats, fingerprint -> the instant their window opened,
       * or null while the call that opened it is still running (its window may yet close).
       */
      repeats?: Record<string, number | null>;
      /** With `billing`: what was reserved in all (`cost` plus the requests that are not repeats). */
      reserved?: Amounts;
      /** With `partial`: the requests not reserved for want of credits, and why. */
      refused?: string[];
      shortOf?: { balance: CreditBalance; available: number; needed: number };
    }
  | { admitted: false; reason: "rps" | "rpm" | "daily"; snapshot: LimitSnapshot; retryAfter: number }
  | {
      admitted: false;
      reason: "credits";
      snapshot: LimitSnapshot | null;
      balance: CreditBalance;
      available: number;
      needed: number;
    };
