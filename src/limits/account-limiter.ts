import { DurableObject } from "cloudflare:workers";
import type { BalanceView, CreditBalance, RateGroup } from "./groups.js";
import { DAY_MS } from "../platform/time.js";
import { planFor } from "./plans.js";
import { effectiveLimits, type Limits } from "./rate-table.js";
import { type OpenWindow, REPEAT_WINDOW_MS, RepeatWindows, SYNC_BATCH } from "./repeat-windows.js";
import { copyCharges, d1Windows } from "./usage-copy.js";
import { logError } from "../request-context.js";

/**
 * One per account (workspace members and every key use the owner's object). It holds the rate-limit
 * counters of every endpoint group, the credit balances and the 30-day repeat windows, so one RPC
 * decides all three atomically: a Durable Object runs one request at a time, every decision runs in
 * one synchronous storage transaction, and the answer is held until that transaction persists.
 * Callers pass `now` so tests can cross second, minute, day and month boundaries without sleeping.
 */

interface Counter {
  count: number;
  /** Instant of the last accepted request; the counter resets after a full window of silence. */
  last: number;
}
interface GroupState {
  second: Counter;
  minute: Counter;
  /** UTC day (YYYY-MM-DD) the daily count belongs to. */
  day: string;
  daily: number;
}
interface CreditState {
  /** UTC month (YYYY-MM) the `used` counts belong to; monthly allowances come from the plan. */
  month: string;
  used: Record<CreditBalance, number>;
  /** Credit pack: spent after the monthly allowance; while it has credits it raises the limits. */
  pack: { size: number; remaining: number } | null;
}
interface Reservation {
  balance: CreditBalance;
  fromPlan: number;
  fromPack: number;
  at: number;
  /**
   * Set on a call's first reservation when its admission opened 30-day windows: they stay here (and
   * in `inFlight`) until its settlement keeps them in `repeat_windows` or drops them. `true` on
   * reservations made before in-flight windows left the table (their rows carry the reservation).
   */
  windows?: OpenedWindows | true;
}
/** The windows a running call opened, and what its charge is recorded as once it is billed. */
interface OpenedWindows {
  fingerprints: string[];
  accountId: number;
  capability: string;
  source: string;
  billedAt: number;
}
interface FixedWindow {
  start: number;
  count: number;
}

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
  cost: Partial<Record<CreditBalance, number>>;
}

/**
 * A credit-billed call answered before the limiter decided it (admission.ts, `chargeLater`: a plan
 * without limits in the call's group, and credits far above its cost): the limiter now tells a
 * repeat from a billed request and charges the latter, as the admission would have, once the
 * answer is known. Never charged beyond the balance left.
 */
export interface LateCharge {
  plan: string;
  accountId: number;
  capability: string;
  source: BillingSource;
  fingerprint: string;
  cost: Partial<Record<CreditBalance, number>>;
  /** The instant the call was admitted (its window opens then if it is billed). */
  at: number;
}

/** What the limiter made of late charges (in the order sent), and the balances after them. */
export interface LateChargeOutcome {
  billed: boolean[];
  balances: Record<CreditBalance, BalanceView>;
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
  plan: string;
  group: RateGroup | null;
  /** Credits to reserve per balance (base cost plus options), empty when free. */
  cost: Partial<Record<CreditBalance, number>>;
  now: number;
  /** Limits to apply instead of the plan table's row (e.g. the shared agent surface's configured limits). */
  limits?: Limits;
  /** Earlier calls' settlements to apply first (gate.ts piggybacks them to save a round trip). */
  settlements?: Settlement[];
  /** Earlier calls' late charges to decide first (admission.ts piggybacks them too). */
  charges?: LateCharge[];
  /** Also answer the credit balances after this admission (GET /v1/me shows them: no second round trip). */
  withBalances?: boolean;
  /** Requests an isolate admitted itself in groups without limits, to be counted now (gate.ts). */
  counts?: GroupCount[];
  /**
   * Credit-billed requests: each one with an open 30-day window is a repeat (reserves nothing);
   * the others are reserved at their cost, on top of `cost`, and their windows open at once, tied
   * to the reservation, so an identical request arriving before this call ends is a repeat too.
   */
  billing?: Billing;
}

/**
 * One request admitted by an isolate on its own: the account's plan has no limit at all in that
 * group (pro-plus, scale) and the call reserved no credits, so nothing had to be decided here. It
 * is still counted, late, so GET /v1/rate-limits shows it as used.
 */
export interface GroupCount {
  group: RateGroup;
  at: number;
}

/** The end of one earlier call (see settle()), carried by a later admission or sent in a batch. */
export interface Settlement {
  reservationIds: string[];
  found: boolean;
  adjust: Partial<Record<CreditBalance, number>>;
  plan: string;
  /**
   * The fingerprints, among those this call's admission opened windows for, that were billed: their
   * windows stay open, the others close. Undefined keeps them all when found. Not found closes all.
   */
  billed?: readonly string[];
}

export type AdmitResult = (
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
      reserved?: Partial<Record<CreditBalance, number>>;
    }
  | { admitted: false; reason: "rps" | "rpm" | "daily"; snapshot: LimitSnapshot; retryAfter: number }
  | { admitted: false; reason: "credits"; snapshot: LimitSnapshot | null; balance: CreditBalance; available: number; needed: number })
  /** With `charges`: what became of them, and the balances after them and this admission's decision. */
  & { lateCharges?: LateChargeOutcome };

export type { BalanceView } from "./groups.js";

const SECOND = 1_000;
const MINUTE = 60_000;
/** Reservations that were never settled (the Worker died mid-call) are refunded after this long. */
export const RESERVATION_TTL_MS = 10 * MINUTE;
const BALANCES: CreditBalance[] = ["search", "verification", "phone"];
/** How long a billed request waits in the object before the D1 copy receives it (one batch per account). */
export const SYNC_DELAY_MS = 1_000;
/** After a failed copy to D1 the alarm tries again this much later. */
const SYNC_RETRY_MS = 30_000;
/** Storage key: the account's windows that D1 held before this object did were taken over (adoptD1Windows). */
const ADOPTED_KEY = "windows-adopted";

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const utcMonth = (ms: number) => new Date(ms).toISOString().slice(0, 7);
export const secondsToUtcMidnight = (ms: number) => Math.max(1, Math.ceil((Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS - ms) / 1000));
export const secondsToNextMinute = (ms: number) => Math.max(1, Math.ceil((Math.floor(ms / MINUTE) * MINUTE + MINUTE - ms) / 1000));

/** What the rate-limit headers report for a group: its limits, what is left of each, and when windows reset. */
export function limitSnapshot(limits: Limits, used: { second: number; minute: number; daily: number }, now: number): LimitSnapshot {
  const left = (limit: number, n: number) => (limit ? Math.max(0, limit - n) : 0);
  return {
    limits,
    secondLeft: left(limits.second, used.second),
    minuteLeft: left(limits.minute, used.minute),
    dailyLeft: left(limits.daily, used.daily),
    minuteResetSeconds: secondsToNextMinute(now),
    dailyResetSeconds: secondsToUtcMidnight(now),
  };
}

export class AccountLimiter extends DurableObject<{ DB: D1Database }> {
  private groups = new Map<string, GroupState>();
  private credits: CreditState | undefined;
  private reservations = new Map<string, Reservation>();
  /** Windows of calls still running, by fingerprint: rebuilt from the `r:` records that hold them. */
  private inFlight = new Map<string, { reservation: string; billedAt: number }>();
  private windows = new Map<string, FixedWindow>();
  /** When the storage alarm is set for, null when none is (read once, then kept in step). */
  private alarmAt: number | null = null;
  private adopted = false;
  private repeatTable: RepeatWindows | undefined;
  private syncing: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: { DB: D1Database }) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      for (const [key, value] of ctx.storage.kv.list<unknown>()) {
        if (key.startsWith("g:")) this.groups.set(key.slice(2), value as GroupState);
        else if (key.startsWith("r:")) this.holdReservation(key.slice(2), value as Reservation);
        else if (key.startsWith("w:")) this.windows.set(key.slice(2), value as FixedWindow);
        else if (key === "credits") this.credits = value as CreditState;
        else if (key === ADOPTED_KEY) this.adopted = true;
      }
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  /** Keeps a reservation in memory, with the windows its call opened. */
  private holdReservation(id: string, reservation: Reservation) {
    this.reservations.set(id, reservation);
    if (reservation.windows && reservation.windows !== true) this.holdWindows(id, reservation.windows);
  }

  /** The windows a running call opened, answered as open (its repeats) until the call ends. */
  private holdWindows(id: string, opened: OpenedWindows) {
    for (const fingerprint of opened.fingerprints) this.inFlight.set(fingerprint, { reservation: id, billedAt: opened.billedAt });
  }

  /** Ends the in-flight windows of reservation `id`; answers whether any was kept (billed). */
  private endWindows(id: string, opened: OpenedWindows | true, found: boolean, billed: readonly string[] | undefined): boolean {
    if (opened === true) {
      if (!found) {
        this.repeatWindows.closeOpenedInTable(id);
        return false;
      }
      return this.repeatWindows.settleOpenedInTable(id, billed);
    }
    const kept: string[] = [];
    for (const fingerprint of opened.fingerprints) {
      // A window replaced since (its 30 days ran out meanwhile) belongs to the newer call.
      if (this.inFlight.get(fingerprint)?.reservation !== id) continue;
      this.inFlight.delete(fingerprint);
      if (found && (!billed || billed.includes(fingerprint))) kept.push(fingerprint);
    }
    if (kept.length) this.repeatWindows.keep(kept, opened);
    return kept.length > 0;
  }

  /** The repeat-window table, created on first use (objects that never bill, e.g. `ip:*`, have none). */
  private get repeatWindows(): RepeatWindows {
    return (this.repeatTable ??= new RepeatWindows(this.ctx.storage.sql));
  }

  /** True once this object has ever opened (or adopted) a window: chores on the table are skipped before. */
  private hasRepeatWindows(): boolean {
    if (this.repeatTable) return true;
    return this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'repeat_windows'").toArray().length > 0;
  }

  /**
   * Rate limit, repeat-or-billed and credit reservation in one step, one storage transaction;
   * nothing is counted, reserved or opened when refused.
   */
  async admit(req: AdmitRequest): Promise<AdmitResult> {
    return (await this.admitMany([req]))[0]!;
  }

  /**
   * Several admissions decided one after the other in the order given, each exactly as if it had
   * come alone (the settlements it carries applied just before it), in one storage transaction:
   * admission.ts sends together the admissions its isolate received for this account while its
   * previous round trip was in flight, so a busy account costs one round trip and one commit per
   * batch, not per request.
   */
  async admitMany(reqs: AdmitRequest[]): Promise<AdmitResult[]> {
    const billingAccount = reqs.find((r) => r.billing)?.billing?.accountId ?? reqs.find((r) => r.charges?.length)?.charges?.[0]?.accountId;
    if (billingAccount !== undefined && !this.adopted) await this.adoptD1Windows(billingAccount);
    let syncSoon = false;
    const results = this.ctx.storage.transactionSync(() => {
      const change = new Change();
      const decided = reqs.map((req): AdmitResult => {
        // Settlements and late charges this isolate had not sent yet ride along and are applied
        // before deciding, so a refund or a charge is never overtaken by the next admission.
        syncSoon = this.applySettlements(req.settlements ?? [], req.now, change) || syncSoon;
        const late = req.charges?.length ? this.applyLateCharges(req.charges, change) : undefined;
        if (late?.some(Boolean)) syncSoon = true;
        this.applyCounts(req.counts ?? [], change);
        const result = this.decide(req, change);
        return late ? { ...result, lateCharges: { billed: late, balances: this.balances(req.plan, req.now) } } : result;
      });
      this.persist(change);
      return decided;
    });
    if (results.some((r) => r.admitted && r.reservationIds.length)) this.armAlarm(Date.now() + RESERVATION_TTL_MS + SECOND);
    if (syncSoon) this.armAlarm(Date.now() + SYNC_DELAY_MS);
    return results;
  }

  private decide(req: AdmitRequest, change: Change): AdmitResult {
    const credits = this.creditState(req.now);
    const packCredits = credits.pack?.remaining ?? 0;
    let state: GroupState | undefined;
    let limits: Limits | undefined;
    if (req.group) {
      limits = req.limits ?? effectiveLimits(req.plan, req.group, packCredits);
      state = this.groupState(req.group, req.now);
      const refusal = this.firstExceeded(state, limits, req.now);
      if (refusal) return { admitted: false, ...refusal, snapshot: this.snapshot(state, limits, req.now) };
    }

    // docs/wire-contract.md §3.2: a request with an open window is a repeat and costs nothing; the others cost theirs.
    const cost: Partial<Record<CreditBalance, number>> = { ...req.cost };
    const repeats: Record<string, number | null> = {};
    const fresh: string[] = [];
    for (const { fingerprint, cost: own } of req.billing?.requests ?? []) {
      if (fingerprint in repeats || fresh.includes(fingerprint)) continue;
      const open = this.openWindow(fingerprint, req.now);
      if (open) {
        repeats[fingerprint] = open.reservation === null ? open.billedAt : null;
        continue;
      }
      fresh.push(fingerprint);
      for (const balance of BALANCES) if (own[balance]) cost[balance] = (cost[balance] ?? 0) + own[balance]!;
    }

    for (const balance of BALANCES) {
      const needed = cost[balance] ?? 0;
      if (needed <= 0) continue;
      const available = this.available(req.plan, balance, credits);
      if (available < needed) {
        return {
          admitted: false,
          reason: "credits",
          balance,
          available,
          needed,
          snapshot: state && limits ? this.snapshot(state, limits, req.now) : null,
        };
      }
    }

    // Every change of this admission goes to storage in the one transaction admit() runs.
    if (state && req.group && limits) {
      state.second = { count: state.second.count + 1, last: req.now };
      state.minute = { count: state.minute.count + 1, last: req.now };
      state.daily += 1;
      this.groups.set(req.group, state);
      change.writes[`g:${req.group}`] = state;
    }
    const reservationIds: string[] = [];
    for (const balance of BALANCES) {
      const amount = cost[balance] ?? 0;
      if (amount <= 0) continue;
      // Reservations age in real time (the sweep is about a Worker that died), whatever clock the caller uses.
      const reservation = this.spend(req.plan, balance, amount, credits, Date.now());
      const id = crypto.randomUUID();
      this.reservations.set(id, reservation);
      change.writes[`r:${id}`] = reservation;
      reservationIds.push(id);
    }
    if (reservationIds.length) change.writes.credits = credits;
    const billing = req.billing;
    // The windows belong to the call's first reservation: its settlement keeps or closes them.
    // They live with it (memory and its r: record, written below) until it settles: no table write yet.
    if (billing && fresh.length && reservationIds.length) {
      const owner = reservationIds[0]!;
      const opened = { fingerprints: fresh, accountId: billing.accountId, capability: billing.capability, source: billing.source, billedAt: req.now };
      this.reservations.get(owner)!.windows = opened;
      this.holdWindows(owner, opened);
    }
    const snapshot = state && limits ? this.snapshot(state, limits, req.now) : null;
    const billed = billing ? { repeats, reserved: cost } : {};
    if (req.withBalances) return { admitted: true, reservationIds, snapshot, balances: this.balances(req.plan, req.now), ...billed };
    return { admitted: true, reservationIds, snapshot, ...billed };
  }

  /** The window of `fingerprint` open at `now`; one left by a call whose reservation is gone counts as closed. */
  private openWindow(fingerprint: string, now: number): OpenWindow | null {
    const flying = this.inFlight.get(fingerprint);
    if (flying && flying.billedAt > now - REPEAT_WINDOW_MS) return flying;
    const open = this.repeatWindows.find(fingerprint, now);
    if (open?.reservation != null && !this.reservations.has(open.reservation)) return null;
    return open;
  }

  /**
   * The windows D1 held before this object held them (billed_requests, written by the Worker until
   * issue 22), taken over once per object so a repeat billed before the move stays free. Runs before
   * the first admission that bills, with every other event held back. Can go once every window
   * billed before the move has closed (30 days after it shipped).
   */
  private async adoptD1Windows(accountId: number): Promise<void> {
    await this.ctx.blockConcurrencyWhile(async () => {
      if (this.adopted) return;
      let rows;
      try {
        rows = await d1Windows(this.env.DB, accountId, Date.now());
      } catch (err) {
        // Not fatal: decide without them now, try again with the next admission that bills.
        logError("limiter: reading the D1 repeat windows failed", err);
        return;
      }
      this.ctx.storage.transactionSync(() => {
        this.repeatWindows.adopt(accountId, rows);
        this.ctx.storage.kv.put(ADOPTED_KEY, true);
      });
      this.adopted = true;
    });
  }

  /**
   * Ends a call. Not found: every reservation is refunded. Found: the reservations stay spent and
   * `adjust` corrects them to what the answer really used (positive: charge more, negative: give
   * back, e.g. an enrich_mobile reservation when no phone was found). Settling twice, or after the
   * sweep, refunds nothing twice.
   */
  settle(reservationIds: string[], found: boolean, adjust: Partial<Record<CreditBalance, number>>, plan: string, now: number): void {
    this.settleMany([{ reservationIds, found, adjust, plan }], now);
  }

  /**
   * Several settlements (and requests to count, see GroupCount) in one call and one storage
   * transaction: gate.ts sends those no admission carried.
   */
  async settleMany(settlements: Settlement[], now: number, counts: GroupCount[] = [], charges: LateCharge[] = []): Promise<LateChargeOutcome | undefined> {
    if (charges.length && !this.adopted) await this.adoptD1Windows(charges[0]!.accountId);
    const { syncSoon, late } = this.ctx.storage.transactionSync(() => {
      const change = new Change();
      const kept = this.applySettlements(settlements, now, change);
      const late = charges.length ? this.applyLateCharges(charges, change) : undefined;
      this.applyCounts(counts, change);
      this.persist(change);
      return { syncSoon: kept || !!late?.some(Boolean), late };
    });
    if (syncSoon) this.armAlarm(Date.now() + SYNC_DELAY_MS);
    return late ? { billed: late, balances: this.balances(charges[0]!.plan, now) } : undefined;
  }

  /**
   * Decides calls answered before they were admitted here (LateCharge): a repeat costs nothing; the
   * others are charged (at most what is left) and their windows kept at once. Answers, per charge,
   * whether it was billed.
   */
  private applyLateCharges(charges: LateCharge[], change: Change): boolean[] {
    return charges.map((c) => {
      if (this.openWindow(c.fingerprint, c.at)) return false;
      const credits = this.creditState(c.at);
      for (const balance of BALANCES) {
        const amount = Math.min(c.cost[balance] ?? 0, this.available(c.plan, balance, credits));
        if (amount > 0) this.spend(c.plan, balance, amount, credits, c.at);
      }
      change.writes.credits = credits;
      this.repeatWindows.keep([c.fingerprint], { accountId: c.accountId, capability: c.capability, source: c.source, billedAt: c.at });
      return true;
    });
  }

  /** Adds requests admitted elsewhere to their groups' counters, as of the instant each was admitted. */
  private applyCounts(counts: GroupCount[], change: Change) {
    for (const { group, at } of counts) {
      const stored = this.groups.get(group);
      // A count from a UTC day already over belongs to no counter that is still shown.
      if (stored && utcDay(at) < stored.day) continue;
      const state = this.groupState(group, at);
      // Counts arrive late and may interleave with newer admissions: windows only move forward.
      state.second = { count: state.second.count + 1, last: Math.max(state.second.last, at) };
      state.minute = { count: state.minute.count + 1, last: Math.max(state.minute.last, at) };
      state.daily += 1;
      this.groups.set(group, state);
      change.writes[`g:${group}`] = state;
    }
  }

  /**
   * Applies settlements in memory and to the repeat windows, collecting the key-value changes;
   * credits are written only if they changed. Answers whether a window was kept (the D1 copy then
   * has something to receive).
   */
  private applySettlements(settlements: Settlement[], now: number, change: Change): boolean {
    if (!settlements.length) return false;
    const credits = this.creditState(now);
    let creditsChanged = false;
    let windowsKept = false;
    for (const { reservationIds, found, adjust, plan, billed } of settlements) {
      // A reservation already swept has had its windows closed with it.
      const owner = reservationIds[0];
      const opened = owner !== undefined ? this.reservations.get(owner)?.windows : undefined;
      if (opened) windowsKept = this.endWindows(owner!, opened, found, billed) || windowsKept;
      const kept: Reservation[] = [];
      for (const id of reservationIds) {
        const r = this.reservations.get(id);
        if (!r) continue;
        if (!found) {
          this.refund(r, credits);
          creditsChanged = true;
        } else kept.push(r);
        this.reservations.delete(id);
        change.deletes.push(`r:${id}`);
      }
      if (found) {
        for (const balance of BALANCES) {
          const amount = adjust[balance] ?? 0;
          if (amount > 0) this.spend(plan, balance, Math.min(amount, this.available(plan, balance, credits)), credits, now);
          if (amount < 0) {
            // Give back to where the credits came from: the pack was spent last, so it is refilled first.
            const back = -amount;
            const fromPack = kept.filter((r) => r.balance === balance).reduce((n, r) => n + r.fromPack, 0);
            const toPack = credits.pack ? Math.min(back, fromPack) : 0;
            if (toPack > 0) credits.pack!.remaining += toPack;
            credits.used[balance] = Math.max(0, credits.used[balance] - (back - toPack));
          }
          if (amount !== 0) creditsChanged = true;
        }
      }
    }
    if (creditsChanged) change.writes.credits = credits;
    return windowsKept;
  }

  /** Called inside a storage transaction: the key-value half of a decision (the windows are written as they change). */
  private persist(change: Change) {
    for (const [key, value] of Object.entries(change.writes)) this.ctx.storage.kv.put(key, value);
    for (const key of change.deletes) this.ctx.storage.kv.delete(key);
  }

  /** Fixed-window limits (keys, reveal, flags): same for every plan, X-RateLimit-* headers. */
  fixedWindow(name: string, limit: number, windowMs: number, now: number) {
    let w = this.windows.get(name);
    if (!w || now - w.start >= windowMs) w = { start: now, count: 0 };
    const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - now) / 1000));
    if (w.count >= limit) return { allowed: false as const, limit, remaining: 0, resetSeconds };
    w.count += 1;
    this.windows.set(name, w);
    this.ctx.storage.kv.put(`w:${name}`, w);
    return { allowed: true as const, limit, remaining: limit - w.count, resetSeconds };
  }

  /** Limits and current usage per group, and the credit balances (GET /v1/rate-limits, /v1/me). */
  status(plan: string, groups: RateGroup[], now: number) {
    const credits = this.creditState(now);
    const packCredits = credits.pack?.remaining ?? 0;
    const perGroup: Record<string, { limits: Limits; used: { second: number; minute: number; daily: number }; snapshot: LimitSnapshot }> = {};
    for (const group of groups) {
      const limits = effectiveLimits(plan, group, packCredits);
      const state = this.groupState(group, now);
      perGroup[group] = {
        limits,
        used: { second: state.second.count, minute: state.minute.count, daily: state.daily },
        snapshot: this.snapshot(state, limits, now),
      };
    }
    return { groups: perGroup, balances: this.balances(plan, now), pack: credits.pack };
  }

  balances(plan: string, now: number): Record<CreditBalance, BalanceView> {
    const credits = this.creditState(now);
    const allowance = planFor(plan).credits;
    const view = {} as Record<CreditBalance, BalanceView>;
    for (const b of BALANCES) view[b] = { available: this.available(plan, b, credits), used: credits.used[b], allowance: allowance[b] };
    return view;
  }

  grantPack(credits: number, now: number) {
    const state = this.creditState(now);
    const remaining = (state.pack?.remaining ?? 0) + credits;
    state.pack = { size: Math.max(state.pack?.size ?? 0, remaining), remaining };
    this.saveCredits(state);
    return state.pack;
  }

  /**
   * One alarm for three chores: refund reservations whose Worker died (after RESERVATION_TTL_MS),
   * send billed requests to the D1 copy (SYNC_DELAY_MS after the first one waiting), and delete
   * windows closed for good (30 days after billing), which keeps the object's storage bounded.
   */
  override async alarm() {
    this.alarmAt = null;
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      const credits = this.creditState(now);
      let refunded = false;
      for (const [id, r] of this.reservations) {
        if (now - r.at < RESERVATION_TTL_MS) continue;
        this.refund(r, credits);
        this.reservations.delete(id);
        this.ctx.storage.kv.delete(`r:${id}`);
        if (r.windows) this.endWindows(id, r.windows, false, undefined);
        refunded = true;
      }
      if (refunded) this.ctx.storage.kv.put("credits", credits);
    });
    const next: number[] = [];
    if (this.reservations.size) next.push(Math.min(...[...this.reservations.values()].map((r) => r.at)) + RESERVATION_TTL_MS + SECOND);
    if (this.hasRepeatWindows()) {
      let copied = true;
      try {
        await this.syncUsage();
      } catch (err) {
        copied = false;
        logError("limiter: copying billed requests to D1 failed; retrying", err);
      }
      this.repeatWindows.sweep(now);
      if (this.repeatWindows.hasUnsynced()) next.push(now + (copied ? SYNC_DELAY_MS : SYNC_RETRY_MS));
      const oldest = this.repeatWindows.oldestSynced();
      if (oldest !== null) next.push(oldest + REPEAT_WINDOW_MS + SECOND);
    }
    if (next.length) this.armAlarm(Math.max(now + SECOND, Math.min(...next)));
  }

  /**
   * Sends every billed request the D1 copy lacks (`billed_requests`, `usage_days`; usage-copy.ts),
   * in batches. The alarm calls it; GET /v1/usage calls it before reading, so it shows every call
   * billed so far. Copies never run side by side; sending a row twice is harmless.
   */
  async syncUsage(): Promise<void> {
    while (this.syncing) await this.syncing;
    this.syncing = this.copyUnsynced().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async copyUnsynced(): Promise<void> {
    if (!this.hasRepeatWindows()) return;
    for (;;) {
      const batch = this.repeatWindows.unsynced(SYNC_BATCH);
      if (!batch.length) return;
      await copyCharges(this.env.DB, batch);
      this.repeatWindows.markSynced(batch);
      if (batch.length < SYNC_BATCH) return;
    }
  }

  private firstExceeded(state: GroupState, limits: Limits, now: number): { reason: "rps" | "rpm" | "daily"; retryAfter: number } | null {
    // The longest wait is the one the caller needs to know about.
    if (limits.daily && state.daily >= limits.daily) return { reason: "daily", retryAfter: secondsToUtcMidnight(now) };
    if (limits.minute && state.minute.count >= limits.minute) return { reason: "rpm", retryAfter: 60 };
    if (limits.second && state.second.count >= limits.second) return { reason: "rps", retryAfter: 1 };
    return null;
  }

  private groupState(group: string, now: number): GroupState {
    const s = this.groups.get(group) ?? { second: { count: 0, last: 0 }, minute: { count: 0, last: 0 }, day: utcDay(now), daily: 0 };
    return {
      second: now - s.second.last >= SECOND ? { count: 0, last: s.second.last } : s.second,
      minute: now - s.minute.last >= MINUTE ? { count: 0, last: s.minute.last } : s.minute,
      day: utcDay(now),
      daily: s.day === utcDay(now) ? s.daily : 0,
    };
  }

  private snapshot(state: GroupState, limits: Limits, now: number): LimitSnapshot {
    return limitSnapshot(limits, { second: state.second.count, minute: state.minute.count, daily: state.daily }, now);
  }

  private creditState(now: number): CreditState {
    const month = utcMonth(now);
    const c = this.credits ?? { month, used: { search: 0, verification: 0, phone: 0 }, pack: null };
    if (c.month !== month) {
      c.month = month;
      c.used = { search: 0, verification: 0, phone: 0 };
    }
    this.credits = c;
    return c;
  }

  private saveCredits(c: CreditState) {
    this.credits = c;
    this.ctx.storage.kv.put("credits", c);
  }

  private available(plan: string, balance: CreditBalance, c: CreditState): number {
    return Math.max(0, planFor(plan).credits[balance] - c.used[balance]) + (c.pack?.remaining ?? 0);
  }

  /** Takes credits from the monthly allowance first, then from the pack. */
  private spend(plan: string, balance: CreditBalance, amount: number, c: CreditState, now: number): Reservation {
    const fromPlan = Math.min(amount, Math.max(0, planFor(plan).credits[balance] - c.used[balance]));
    const fromPack = amount - fromPlan;
    c.used[balance] += fromPlan;
    if (fromPack > 0 && c.pack) c.pack.remaining = Math.max(0, c.pack.remaining - fromPack);
    return { balance, fromPlan, fromPack, at: now };
  }

  private refund(r: Reservation, c: CreditState) {
    c.used[r.balance] = Math.max(0, c.used[r.balance] - r.fromPlan);
    if (r.fromPack > 0 && c.pack) c.pack.remaining += r.fromPack;
  }

  /** Sets the storage alarm for `at` unless it is already set for that instant or earlier. */
  private armAlarm(at: number) {
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }
}

/** The key-value changes of one decision, written together by persist(). */
class Change {
  writes: Record<string, unknown> = {};
  deletes: string[] = [];
}
