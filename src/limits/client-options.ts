import { LEASE_CALL_MS, LEASE_USE_MS } from "./isolate-lease.js";

/** The timings and sizes of an isolate's limiter client (limiter-client.ts); tests and the fault harness shorten them. */
export interface ClientOptions {
  /** A settlement or late charge waits this long for a round trip to ride with, then goes on its own. */
  settleWaitMs: number;
  /**
   * While admissions keep coming for the account (one in the last settleWaitMs), what is owed waits
   * for the next one, up to this long in all: a message of its own would hold that admission back
   * one round trip (one message in flight per account).
   */
  rideWaitMs: number;
  /** A count waits this long (counts decide nothing; within the isolate they count at once). */
  countWaitMs: number;
  /** How often a waiting admission looks at its line. */
  pollMs: number;
  /** A message unanswered this long is sent again by the next request that waits on its line. */
  resendAfterMs: number;
  /** First pause after a failed send (doubled after each failure, up to a second). */
  retryMs: number;
  /** A message unanswered this long is given up: its admissions fail, what it owed goes again. */
  giveUpMs: number;
  /** An admission fails (its request answers 503) after this many failed sends of its message. */
  admissionAttempts: number;
  /** Credits of each balance a lease tops up to; also what an isolate that dies can leave unbilled. */
  leaseCredits: number;
  /** A top-up is granted only while this many credits stay available after it. */
  leaseFloor: number;
  /**
   * Units of a group's daily limit an isolate holds as its share (rate-share-book.ts), topped up
   * when half is spent; also what an isolate that dies can leave unserved of the day. 0: no shares.
   */
  rateShareUnits: number;
  /** A share is granted or topped up only while this many requests of the day stay left after it. */
  rateShareFloor: number;
  /** A share unused this long is given back; after a refused one, none is asked for this long. */
  rateShareIdleMs: number;
  /** A lease pays for calls only this long after its last top-up was sent. */
  leaseUseMs: number;
  /** A lease-paid call that has not sent its charge this long after taking its credits never gave its answer. */
  leaseCallMs: number;
  /** This isolate's clock (the fault harness gives each isolate its own, to make its round trips slow). */
  now: () => number;
  /** The longest a request's waitUntil keeps sending what its line owes. */
  drainBudgetMs: number;
  /**
   * An admitted request whose waiter has not looked at its line for this long, while not awaiting a
   * round trip of its own, is gone (its request ended): what it was admitted is released at once.
   */
  orphanMs: number;
}

export const DEFAULT_CLIENT_OPTIONS: ClientOptions = {
  settleWaitMs: 10,
  rideWaitMs: 100,
  countWaitMs: 1_000,
  pollMs: 3,
  resendAfterMs: 2_000,
  retryMs: 10,
  giveUpMs: 60_000,
  admissionAttempts: 2,
  leaseCredits: 200,
  leaseFloor: 1_000,
  rateShareUnits: 100,
  rateShareFloor: 1_000,
  rateShareIdleMs: 30_000,
  leaseUseMs: LEASE_USE_MS,
  leaseCallMs: LEASE_CALL_MS,
  drainBudgetMs: 20_000,
  orphanMs: 10_000,
  now: () => Date.now(),
};
