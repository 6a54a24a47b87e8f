import type { AdmissionKeys } from "./admission-keys.js";
import type { CreditBook } from "./credit-book.js";
import type { LeaseBook } from "./lease-book.js";
import type { RateCounters } from "./rate-counters.js";
import type { OpenWindow, RepeatWindows } from "./repeat-windows.js";
import type { ReservationBook } from "./reservation-book.js";

/**
 * What one account's limiter holds, as the modules that decide with it see it (admission-decision.ts,
 * settlements.ts): the AccountLimiter object loads and stores them, the modules are plain code on them.
 */
export interface LimiterBooks {
  readonly credits: CreditBook;
  readonly reservations: ReservationBook;
  readonly leases: LeaseBook;
  readonly counters: RateCounters;
  /** The 30-day windows (table `repeat_windows`). */
  readonly repeatWindows: RepeatWindows;
  /** Decisions kept by key (table `admission_keys`). */
  readonly admissionKeys: AdmissionKeys;
}

/**
 * The window of `fingerprint` open at `now`: a request billed less than 30 days ago. A call still
 * running opens none: identical calls running side by side each hold their cost, and whichever is
 * charged first is billed, the others are its repeats (so a call that fails or finds nothing
 * never leaves another one free).
 */
export function openWindow(books: LimiterBooks, fingerprint: string, now: number): OpenWindow | null {
  return books.repeatWindows.find(fingerprint, now);
}
