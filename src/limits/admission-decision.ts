import { type Amounts, BALANCES } from "./credit-book.js";
import type { CreditBalance } from "./groups.js";
import type { LimiterBooks } from "./limiter-books.js";
import type { Change } from "./limiter-change.js";
import type { AdmitRequest, AdmitResult } from "./limiter-messages.js";
import type { GroupState } from "./rate-counters.js";
import { effectiveLimits, type Limits } from "./rate-table.js";

/**
 * One admission, decided by the account's limiter in its transaction: the group's rate limits,
 * then the 30-day rule (a request with an open window is a repeat and costs nothing), then the
 * credits the others cost, held as reservations named `<key>.<balance>`.
 */
export function decideAdmission(books: LimiterBooks, req: AdmitRequest, now: number, change: Change): AdmitResult {
  const { credits, counters } = books;
  const packCredits = credits.pack(now)?.remaining ?? 0;
  let state: GroupState | undefined;
  let limits: Limits | undefined;
  if (req.group) {
    limits = effectiveLimits(req.plan, req.group, packCredits);
    state = counters.state(req.group, now);
    const refusal = counters.exceeded(state, limits, now);
    if (refusal) return { admitted: false, ...refusal, snapshot: counters.snapshot(state, limits, now) };
  }
  const snapshot = () => (state && limits ? counters.snapshot(state, limits, now) : null);

  // docs/wire-contract.md §3.2: a request with an open window is a repeat and costs nothing; the others cost theirs.
  const cost: Amounts = { ...req.cost };
  const repeats: Record<string, number | null> = {};
  const fresh: string[] = [];
  const refused: string[] = [];
  let shortOf: { balance: CreditBalance; available: number; needed: number } | undefined;
  for (const { fingerprint, cost: own } of req.billing?.requests ?? []) {
    if (fingerprint in repeats || fresh.includes(fingerprint) || refused.includes(fingerprint)) continue;
    const open = books.repeatWindows.find(fingerprint, now);
    if (open) {
      repeats[fingerprint] = open.billedAt;
      continue;
    }
    if (req.partial) {
      // In order, while the balance covers each request whole; `short` is looked for only while no request was short yet.
      const short = shortOf
        ? undefined
        : BALANCES.find(
            (b) => (own[b] ?? 0) > 0 && credits.available(req.plan, b, now) - (cost[b] ?? 0) < (own[b] ?? 0),
          );
      if (short)
        shortOf = {
          balance: short,
          available: Math.max(0, credits.available(req.plan, short, now) - (cost[short] ?? 0)),
          needed: own[short] ?? 0,
        };
      if (shortOf) {
        refused.push(fingerprint);
        continue;
      }
    }
    fresh.push(fingerprint);
    for (const balance of BALANCES) if (own[balance]) cost[balance] = (cost[balance] ?? 0) + (own[balance] ?? 0);
  }

  for (const balance of BALANCES) {
    const needed = cost[balance] ?? 0;
    if (needed <= 0) continue;
    const available = credits.available(req.plan, balance, now);
    if (available < needed)
      return {
        admitted: false,
        reason: "credits",
        balance,
        available: Math.max(0, available),
        needed,
        snapshot: snapshot(),
      };
  }

  // Every change of this admission goes to storage in the one transaction of its message.
  if (state && req.group) counters.count(req.group, state, now, change);
  const key = req.key ?? crypto.randomUUID();
  const reservationIds: string[] = [];
  const billing = req.billing;
  for (const balance of BALANCES) {
    const amount = cost[balance] ?? 0;
    if (amount <= 0) continue;
    const id = `${key}.${balance}`;
    // The requests it may be billed for belong to the call's first reservation: its settlement
    // keeps their windows (billed) or none. Nothing is written to the table before.
    const windows =
      billing && fresh.length && !reservationIds.length
        ? {
            fingerprints: fresh,
            accountId: billing.accountId,
            capability: billing.capability,
            source: billing.source,
            billedAt: now,
          }
        : undefined;
    books.reservations.hold(id, { balance, amount, at: now, ...(windows ? { windows } : {}) }, change);
    reservationIds.push(id);
  }
  const result: AdmitResult = { admitted: true, reservationIds, snapshot: snapshot() };
  if (billing) Object.assign(result, { repeats, reserved: cost });
  if (req.partial && refused.length) Object.assign(result, { refused, shortOf });
  if (req.withBalances) result.balances = credits.view(req.plan, now);
  return result;
}
