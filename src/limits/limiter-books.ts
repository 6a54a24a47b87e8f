import type { AdmissionKeys } from "./admission-keys.js";
import type { CreditBook } from "./credit-book.js";
import type { LeaseBook } from "./lease-book.js";
import type { RateCounters } from "./rate-counters.js";
import type { RefusedCharges } from "./refused-charges.js";
import type { RepeatWindows } from "./repeat-windows.js";
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
  /** Late charges decided not billed, by key (kept in `admission_keys`). */
  readonly refusedCharges: RefusedCharges;
}
