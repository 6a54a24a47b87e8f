import { type Amounts, BALANCES } from "./credit-book.js";
import type { CreditBalance } from "./groups.js";
import type { LimiterBooks } from "./limiter-books.js";
import type { Change } from "./limiter-change.js";
import type { ChargeDecision, LateCharge, Settlement, SettlementOutcome, SettlementPart } from "./limiter-messages.js";
import type { OpenedWindows, Reservation } from "./reservation-book.js";

/**
 * How one account's limiter ends a call: the settlement of its reservations, or the late charge of
 * a call paid from an isolate's lease. Each is decided once; sent again, it is answered from what
 * the first decision kept (the windows, or the key of a charge decided not billed).
 */

/**
 * Ends a call. Not found: its holds are released (refunded). Found: they are charged, corrected to
 * what the answer really used: less is simply not charged, more is charged as far as the balance
 * covers it (an answer already given is never charged beyond the balance, nor left free). With
 * `parts` (a bulk chunk: one reservation for many requests) each billed request is charged its own
 * cost that way. The billed windows are kept, opening now, each with what its request was charged.
 * Settling again, or after the sweep, changes nothing: the answer then comes from the windows kept.
 */
export function applySettlement(
  books: LimiterBooks,
  s: Settlement,
  plan: string,
  now: number,
  change: Change,
): SettlementOutcome {
  const owner = s.reservationIds[0];
  const billedList = s.parts ? s.parts.map((p) => p.fingerprint) : s.billed;
  const live = books.reservations.live(s.reservationIds);
  if (!live.length) return settledBefore(books, owner, s.found ? (billedList ?? []) : [], now);
  const opened = owner !== undefined ? books.reservations.get(owner)?.windows : undefined;
  // The requests this call may be billed for; one another call was billed for meanwhile is its repeat.
  const asked = opened ? opened.fingerprints.filter((fp) => !billedList || billedList.includes(fp)) : [];
  const elsewhere = opened && s.found ? billedElsewhere(books, owner, asked, now) : new Set<string>();
  const billing = s.found ? asked.filter((fp) => !elsewhere.has(fp)) : [];
  // A single call whose request was billed elsewhere is a repeat: nothing is charged.
  const found = s.found && !(opened && !billing.length);
  for (const [id, r] of live) books.reservations.drop(id, r, change);
  let charged: Amounts = {};
  let parts: Amounts[] | undefined;
  if (found && s.parts) {
    parts = chargeParts(
      books,
      s.parts.map((p) => (elsewhere.has(p.fingerprint) ? { ...p, cost: {} } : p)),
      plan,
      now,
    );
    for (const part of parts)
      for (const [b, n] of Object.entries(part) as [CreditBalance, number][]) charged[b] = (charged[b] ?? 0) + n;
  } else if (found) charged = chargeAdjusted(books, s.adjust, live, plan, now);
  const chargedFor = (fingerprint: string): Amounts | null => {
    if (parts && s.parts) return parts[s.parts.findIndex((p) => p.fingerprint === fingerprint)] ?? null;
    return billing.length === 1 ? charged : null;
  };
  const kept = opened ? keepWindows(books, owner, opened, billing, now, chargedFor) : [];
  const out: SettlementOutcome = { billed: kept, at: kept.length ? now : null, charged };
  if (parts) out.parts = parts;
  return out;
}

/** Keeps the windows of the requests call `id` was billed for, opening now (`charged` says what each cost); the others stay closed. */
function keepWindows(
  books: LimiterBooks,
  id: string,
  opened: OpenedWindows,
  kept: readonly string[],
  now: number,
  charged: (fingerprint: string) => Amounts | null,
): string[] {
  if (kept.length)
    books.repeatWindows.keep(
      kept.map((fingerprint) => ({ fingerprint, charged: charged(fingerprint) })),
      { ...opened, billedAt: now, call: id },
    );
  return [...kept];
}

/** Requests another call was billed for since (a window kept under another call): this call is their repeat. */
function billedElsewhere(books: LimiterBooks, owner: string, fingerprints: readonly string[], now: number) {
  const out = new Set<string>();
  for (const fingerprint of fingerprints) {
    const open = books.repeatWindows.find(fingerprint, now);
    if (open && open.call !== owner) out.add(fingerprint);
  }
  return out;
}

/** A settlement whose reservations are gone (applied before, or swept): the windows kept under its call say what was billed. */
function settledBefore(
  books: LimiterBooks,
  owner: string | undefined,
  fingerprints: readonly string[],
  now: number,
): SettlementOutcome {
  const billed: string[] = [];
  const parts: (Amounts | null)[] = [];
  let at: number | null = null;
  for (const fingerprint of fingerprints) {
    const open = owner === undefined ? null : books.repeatWindows.find(fingerprint, now);
    const mine = open?.call === owner;
    if (mine) {
      if (!open) throw new Error("a settlement without reservations has no windows of its own");
      billed.push(fingerprint);
      at = open.billedAt;
    }
    parts.push(mine && open ? ((open.charged as Amounts | null) ?? null) : {});
  }
  return { billed, at, charged: null, replayed: parts };
}

/** One call's holds charged, trued up by `adjust` (see applySettlement). */
function chargeAdjusted(
  books: LimiterBooks,
  adjustments: Amounts,
  live: readonly (readonly [string, Reservation])[],
  plan: string,
  now: number,
): Amounts {
  const charged: Amounts = {};
  for (const balance of BALANCES) {
    const held = live.filter(([, r]) => r.balance === balance).reduce((n, [, r]) => n + r.amount, 0);
    const adjust = adjustments[balance] ?? 0;
    let amount = held;
    if (adjust < 0) amount -= Math.min(-adjust, held);
    // The holds were released, so what they covered is available again. An answer that used more
    // than was held is charged what the balance still covers (never beyond it, never nothing).
    if (adjust > 0) amount += Math.min(adjust, Math.max(0, books.credits.available(plan, balance, now) - amount));
    books.credits.charge(plan, balance, amount, now);
    if (amount > 0) charged[balance] = amount;
  }
  return charged;
}

/**
 * Many requests' holds charged request by request: each its cost up to what was reserved for it
 * (covered by the holds just released), then, in order, what it costs beyond that as far as the
 * balance covers it. Answers what each request was charged.
 */
function chargeParts(books: LimiterBooks, parts: readonly SettlementPart[], plan: string, now: number): Amounts[] {
  const out = parts.map((part) => {
    const base: Amounts = {};
    for (const b of BALANCES) {
      const n = Math.min(part.cost[b] ?? 0, part.reserved[b] ?? 0);
      if (n <= 0) continue;
      base[b] = n;
      books.credits.charge(plan, b, n, now);
    }
    return base;
  });
  parts.forEach((part, i) => {
    for (const b of BALANCES) {
      const extra = Math.min((part.cost[b] ?? 0) - (out[i][b] ?? 0), books.credits.available(plan, b, now));
      if (extra <= 0) continue;
      books.credits.charge(plan, b, extra, now);
      out[i][b] = (out[i][b] ?? 0) + extra;
    }
  });
  return out;
}

/**
 * Decides a call answered before it was admitted here (LateCharge): a repeat costs nothing; the
 * others are charged from the isolate's lease while it holds the credits, else from the balance if
 * it covers the whole cost, else not at all (that decision is kept under the charge's key, so the
 * same charge sent again is answered the same). A billed call's window is kept at once, opening now.
 */
export function applyLateCharge(
  books: LimiterBooks,
  c: LateCharge,
  plan: string,
  now: number,
  change: Change,
): ChargeDecision {
  const refused = books.refusedCharges.find(c.key);
  if (refused) return refused;
  const open = books.repeatWindows.find(c.fingerprint, now);
  if (open) return open.call === c.key ? { billed: true, at: open.billedAt } : { billed: false, at: null };
  const fromLease = books.leases.covers(c.lease, c.cost);
  if (!fromLease && !BALANCES.every((b) => books.credits.available(plan, b, now) >= (c.cost[b] ?? 0))) {
    const unbilled: ChargeDecision = { billed: false, at: null };
    books.refusedCharges.remember(c.key, now, unbilled);
    return unbilled;
  }
  if (fromLease && c.lease) books.leases.spend(c.lease, c.cost, now, change);
  for (const balance of BALANCES) {
    const amount = c.cost[balance] ?? 0;
    if (amount > 0) books.credits.charge(plan, balance, amount, now);
  }
  books.repeatWindows.keep([{ fingerprint: c.fingerprint, charged: c.cost }], {
    accountId: c.accountId,
    capability: c.capability,
    source: c.source,
    billedAt: now,
    call: c.key,
  });
  return { billed: true, at: now };
}
