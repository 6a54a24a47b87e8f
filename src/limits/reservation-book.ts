import type { CreditBook } from "./credit-book.js";
import type { CreditBalance } from "./groups.js";
import type { Change } from "./limiter-change.js";

/** Credits held for a running call (an `r:` key of the limiter). */
export interface Reservation {
  balance: CreditBalance;
  /** Credits held (not charged until the call's settlement says it found something). */
  amount: number;
  /** When it was made or last kept alive, on the limiter's clock (the sweep refunds it RESERVATION_TTL_MS later). */
  at: number;
  /**
   * Set on a call's first reservation when its admission reserved requests under the 30-day rule:
   * its settlement keeps their windows in `repeat_windows` (those it is billed for) or none.
   */
  windows?: OpenedWindows;
}
/** The windows a running call may open, and what its charge is recorded as once it is billed. */
export interface OpenedWindows {
  fingerprints: string[];
  accountId: number;
  capability: string;
  source: string;
  billedAt: number;
}

/** Reservations never settled (their call's isolate died mid-call) are released after this long. */
export const RESERVATION_TTL_MS = 10 * 60_000;

/** The admission key a reservation id was made from (`<key>.<balance>`). */
export const keyOf = (reservationId: string) => reservationId.slice(0, reservationId.lastIndexOf("."));

/** The reservations of one account's limiter, their credits held in its credit book. */
export class ReservationBook {
  private readonly held = new Map<string, Reservation>();

  constructor(private readonly credits: CreditBook) {}

  /** Holds a reservation's credits (one loaded from storage, or a new one `change` writes). */
  hold(id: string, r: Reservation, change?: Change) {
    this.held.set(id, r);
    this.credits.hold(r.balance, r.amount);
    change?.put(`r:${id}`, r);
  }

  get(id: string): Reservation | undefined {
    return this.held.get(id);
  }

  get size(): number {
    return this.held.size;
  }

  /** The reservations of `ids` still held. */
  live(ids: readonly string[]): (readonly [string, Reservation])[] {
    return ids.map((id) => [id, this.held.get(id)] as const).filter((e): e is readonly [string, Reservation] => !!e[1]);
  }

  /** Ends a reservation: its credits released (the caller charges them when its call found something). */
  drop(id: string, r: Reservation, change: Change) {
    this.held.delete(id);
    change.delete(`r:${id}`);
    this.credits.release(r.balance, r.amount);
  }

  /** Reservations still in use: their age starts again now (the sweep releases them RESERVATION_TTL_MS later). */
  keepAlive(ids: readonly string[], now: number, change: Change) {
    for (const id of ids) {
      const r = this.held.get(id);
      if (!r) continue;
      r.at = now;
      change.put(`r:${id}`, r);
    }
  }

  /** True while a reservation made under admission key `key` is held. */
  anyOf(key: string): boolean {
    for (const id of this.held.keys()) if (keyOf(id) === key) return true;
    return false;
  }

  /** Reservations RESERVATION_TTL_MS old at `now`. */
  expired(now: number): (readonly [string, Reservation])[] {
    return [...this.held].filter(([, r]) => now - r.at >= RESERVATION_TTL_MS);
  }

  /** When the first one expires (Infinity when none is held). */
  firstExpiry(): number {
    let first = Infinity;
    for (const r of this.held.values()) first = Math.min(first, r.at + RESERVATION_TTL_MS);
    return first;
  }
}
