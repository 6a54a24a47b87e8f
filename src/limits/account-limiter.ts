import { DurableObject } from "cloudflare:workers";
import type { BalanceView, CreditBalance, RateGroup } from "./groups.js";
import { DAY_MS } from "../http/time.js";
import { planFor } from "./plans.js";
import { effectiveLimits, type Limits } from "./rate-table.js";

/**
 * One per account (workspace members and every key use the owner's object). It holds the rate-limit
 * counters of every endpoint group and the credit balances, so one RPC decides both atomically:
 * a Durable Object runs one request at a time and its storage writes are held until they persist.
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
  /** Also answer the credit balances after this admission (GET /v1/me shows them: no second round trip). */
  withBalances?: boolean;
  /** Requests an isolate admitted itself in groups without limits, to be counted now (gate.ts). */
  counts?: GroupCount[];
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
}

export type AdmitResult =
  | { admitted: true; reservationIds: string[]; snapshot: LimitSnapshot | null; balances?: Record<CreditBalance, BalanceView> }
  | { admitted: false; reason: "rps" | "rpm" | "daily"; snapshot: LimitSnapshot; retryAfter: number }
  | { admitted: false; reason: "credits"; snapshot: LimitSnapshot | null; balance: CreditBalance; available: number; needed: number };

export type { BalanceView } from "./groups.js";

const SECOND = 1_000;
const MINUTE = 60_000;
/** Reservations that were never settled (the Worker died mid-call) are refunded after this long. */
export const RESERVATION_TTL_MS = 10 * MINUTE;
const BALANCES: CreditBalance[] = ["search", "verification", "phone"];

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

export class AccountLimiter extends DurableObject<unknown> {
  private groups = new Map<string, GroupState>();
  private credits: CreditState | undefined;
  private reservations = new Map<string, Reservation>();
  private windows = new Map<string, FixedWindow>();

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      const stored = await ctx.storage.list<unknown>();
      for (const [key, value] of stored) {
        if (key.startsWith("g:")) this.groups.set(key.slice(2), value as GroupState);
        else if (key.startsWith("r:")) this.reservations.set(key.slice(2), value as Reservation);
        else if (key.startsWith("w:")) this.windows.set(key.slice(2), value as FixedWindow);
        else if (key === "credits") this.credits = value as CreditState;
      }
    });
  }

  /** Rate limit and credit reservation in one step; nothing is counted or reserved when refused. */
  admit(req: AdmitRequest): AdmitResult {
    // Settlements this isolate had not sent yet ride along and are applied before deciding, so a
    // refund is never overtaken by the next admission from the same isolate.
    const writes: Record<string, unknown> = {};
    const deletes: string[] = [];
    this.applySettlements(req.settlements ?? [], req.now, writes, deletes);
    this.applyCounts(req.counts ?? [], writes);
    const result = this.decide(req, writes);
    this.persist(writes, deletes);
    return result;
  }

  private decide(req: AdmitRequest, writes: Record<string, unknown>): AdmitResult {
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

    for (const balance of BALANCES) {
      const needed = req.cost[balance] ?? 0;
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

    // Every change of this admission goes to storage in one write (admit() persists `writes`).
    if (state && req.group && limits) {
      state.second = { count: state.second.count + 1, last: req.now };
      state.minute = { count: state.minute.count + 1, last: req.now };
      state.daily += 1;
      this.groups.set(req.group, state);
      writes[`g:${req.group}`] = state;
    }
    const reservationIds: string[] = [];
    for (const balance of BALANCES) {
      const amount = req.cost[balance] ?? 0;
      if (amount <= 0) continue;
      // Reservations age in real time (the sweep is about a Worker that died), whatever clock the caller uses.
      const reservation = this.spend(req.plan, balance, amount, credits, Date.now());
      const id = crypto.randomUUID();
      this.reservations.set(id, reservation);
      writes[`r:${id}`] = reservation;
      reservationIds.push(id);
    }
    if (reservationIds.length) {
      writes.credits = credits;
      this.ensureSweepAlarm(Date.now());
    }
    const snapshot = state && limits ? this.snapshot(state, limits, req.now) : null;
    if (req.withBalances) return { admitted: true, reservationIds, snapshot, balances: this.balances(req.plan, req.now) };
    return { admitted: true, reservationIds, snapshot };
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
   * Several settlements (and requests to count, see GroupCount) in one call and one storage write:
   * gate.ts sends those no admission carried.
   */
  settleMany(settlements: Settlement[], now: number, counts: GroupCount[] = []): void {
    const writes: Record<string, unknown> = {};
    const deletes: string[] = [];
    this.applySettlements(settlements, now, writes, deletes);
    this.applyCounts(counts, writes);
    this.persist(writes, deletes);
  }

  /** Adds requests admitted elsewhere to their groups' counters, as of the instant each was admitted. */
  private applyCounts(counts: GroupCount[], writes: Record<string, unknown>) {
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
      writes[`g:${group}`] = state;
    }
  }

  /** Applies settlements in memory, collecting their storage changes; credits are written only if they changed. */
  private applySettlements(settlements: Settlement[], now: number, writes: Record<string, unknown>, deletes: string[]) {
    if (!settlements.length) return;
    const credits = this.creditState(now);
    let creditsChanged = false;
    for (const { reservationIds, found, adjust, plan } of settlements) {
      const kept: Reservation[] = [];
      for (const id of reservationIds) {
        const r = this.reservations.get(id);
        if (!r) continue;
        if (!found) {
          this.refund(r, credits);
          creditsChanged = true;
        } else kept.push(r);
        this.reservations.delete(id);
        deletes.push(`r:${id}`);
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
    if (creditsChanged) writes.credits = credits;
  }

  private persist(writes: Record<string, unknown>, deletes: string[]) {
    // Both calls in one event commit together (the output gate holds the answer until they persist).
    if (Object.keys(writes).length) this.ctx.storage.put(writes);
    if (deletes.length) this.ctx.storage.delete(deletes);
  }

  /** Fixed-window limits (keys, reveal, flags): same for every plan, X-RateLimit-* headers. */
  fixedWindow(name: string, limit: number, windowMs: number, now: number) {
    let w = this.windows.get(name);
    if (!w || now - w.start >= windowMs) w = { start: now, count: 0 };
    const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - now) / 1000));
    if (w.count >= limit) return { allowed: false as const, limit, remaining: 0, resetSeconds };
    w.count += 1;
    this.windows.set(name, w);
    this.ctx.storage.put(`w:${name}`, w);
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

  override async alarm() {
    this.alarmScheduled = false;
    const now = Date.now();
    const credits = this.creditState(now);
    for (const [id, r] of this.reservations) {
      if (now - r.at < RESERVATION_TTL_MS) continue;
      this.refund(r, credits);
      this.reservations.delete(id);
      this.ctx.storage.delete(`r:${id}`);
    }
    this.saveCredits(credits);
    if (this.reservations.size) this.ensureSweepAlarm(now);
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
    this.ctx.storage.put("credits", c);
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

  private alarmScheduled = false;

  private ensureSweepAlarm(now: number) {
    if (this.alarmScheduled) return;
    this.alarmScheduled = true;
    void this.ctx.storage.getAlarm().then((at) => {
      if (at === null) void this.ctx.storage.setAlarm(now + RESERVATION_TTL_MS + SECOND);
    });
  }
}
