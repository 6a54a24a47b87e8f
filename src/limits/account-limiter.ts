import { DurableObject } from "cloudflare:workers";
import { DAY_MS } from "../platform/time.js";
import { logError } from "../request-context.js";
import { ADMISSION_KEY_TTL_MS, AdmissionKeys, GRANT_KEY_TTL_MS } from "./admission-keys.js";
import { type Amounts, BALANCES, CreditBook, type CreditState } from "./credit-book.js";
import type { BalanceView, CreditBalance, RateGroup } from "./groups.js";
import { LEASE_TTL_MS } from "./isolate-lease.js";
import type {
  AdmitRequest,
  AdmitResult,
  ChargeDecision,
  GroupCount,
  LateCharge,
  LeaseRequest,
  LeaseState,
  LimiterMessage,
  LimiterReply,
  LimitSnapshot,
  Settlement,
  SettlementOutcome,
  SettlementPart,
} from "./limiter-messages.js";
import { effectiveLimits, type Limits } from "./rate-table.js";
import { type OpenWindow, REPEAT_WINDOW_MS, RepeatWindows, SYNC_BATCH } from "./repeat-windows.js";
import { copyCharges, d1Windows } from "./usage-copy.js";

/**
 * One per account (workspace members and every key use the owner's object). It holds the rate-limit
 * counters of every endpoint group, the credit balances and what is held of them, and the 30-day
 * repeat windows, so one RPC decides all of them atomically: a Durable Object runs one request at a
 * time, every decision runs in one synchronous storage transaction, and the answer is held until that
 * transaction persists.
 *
 * Every decision is made on the limiter's own clock (`clock`): the second, minute, UTC day and UTC
 * month a request counts in, when a window opens, when a hold expires. Instants sent by isolates
 * are never trusted for these. Every message is harmless when it is sent twice: an admission by its
 * key (admission-keys.ts), a settlement by its reservations, a late charge by its key, a lease
 * top-up by its sequence number, a pack grant by its key (billing.md lists them).
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
/** Credits held for a running call (an `r:` key). */
interface Reservation {
  balance: CreditBalance;
  /** Credits held (not charged until the call's settlement says it found something). */
  amount: number;
  /** When it was made or last kept alive, on the limiter's clock (the sweep refunds it RESERVATION_TTL_MS later). */
  at: number;
  /**
   * Set on a call's first reservation when its admission reserved requests under the 30-day rule:
   * its settlement keeps their windows in `repeat_windows` (those it is billed for) or none. `true`
   * on reservations made before windows were kept at settlement (their rows carry the reservation).
   */
  windows?: OpenedWindows | true;
  /**
   * Reservations stored before credits were held: they were charged at admission (`amount` is
   * absent), from the plan and the pack in the month given, and a refund gives them back.
   */
  fromPlan?: number;
  fromPack?: number;
  month?: string;
}
/** The windows a running call opened, and what its charge is recorded as once it is billed. */
interface OpenedWindows {
  fingerprints: string[];
  accountId: number;
  capability: string;
  source: string;
  billedAt: number;
}
/** Credits an isolate holds to answer calls before their charge reaches the limiter (an `l:` key). */
interface Lease {
  held: Amounts;
  /** Last top-up or charge against it; the sweep releases it LEASE_TTL_MS later. */
  at: number;
  /** Sequence number of the last top-up applied (a top-up sent again is not applied twice). */
  seq: number;
}
interface FixedWindow {
  start: number;
  count: number;
}

export type { BalanceView } from "./groups.js";

const SECOND = 1_000;
const MINUTE = 60_000;
/** Reservations that were never settled (the Worker died mid-call) are refunded after this long. */
export const RESERVATION_TTL_MS = 10 * MINUTE;
/** How long a billed request waits in the object before the D1 copy receives it (one batch per account). */
export const SYNC_DELAY_MS = 1_000;
/** After a failed copy to D1 the alarm tries again this much later. */
const SYNC_RETRY_MS = 30_000;
/** Count keys remembered (counts sent again are counted once; no decision depends on counts). */
const COUNT_KEYS = 10_000;
/** Storage key: the account's windows that D1 held before this object did were taken over (adoptD1Windows). */
const ADOPTED_KEY = "windows-adopted";

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const secondsToUtcMidnight = (ms: number) =>
  Math.max(1, Math.ceil((Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS - ms) / 1000));
export const secondsToNextMinute = (ms: number) =>
  Math.max(1, Math.ceil((Math.floor(ms / MINUTE) * MINUTE + MINUTE - ms) / 1000));
/** The admission key a reservation id was made from (`<key>.<balance>`). */
const keyOf = (reservationId: string) => reservationId.slice(0, reservationId.lastIndexOf("."));

/** What the rate-limit headers report for a group: its limits, what is left of each, and when windows reset. */
export function limitSnapshot(
  limits: Limits,
  used: { second: number; minute: number; daily: number },
  now: number,
): LimitSnapshot {
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
  /** The limiter's clock: every instant it decides with (tests move it to cross days and months). */
  clock: () => number = () => Date.now();
  private groups = new Map<string, GroupState>();
  private credits!: CreditBook;
  private reservations = new Map<string, Reservation>();
  private leases = new Map<string, Lease>();
  private windows = new Map<string, FixedWindow>();
  private countKeys = new Set<string>();
  /** When the storage alarm is set for, null when none is (read once, then kept in step). */
  private alarmAt: number | null = null;
  private adopted = false;
  private repeatTable: RepeatWindows | undefined;
  private keyTable: AdmissionKeys | undefined;
  private grantTable: AdmissionKeys | undefined;
  private syncing: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: { DB: D1Database }) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      let credits: CreditState | undefined;
      for (const [key, value] of ctx.storage.kv.list<unknown>()) {
        if (key.startsWith("g:")) this.groups.set(key.slice(2), value as GroupState);
        else if (key.startsWith("r:")) this.reservations.set(key.slice(2), value as Reservation);
        else if (key.startsWith("l:")) this.leases.set(key.slice(2), value as Lease);
        else if (key.startsWith("w:")) this.windows.set(key.slice(2), value as FixedWindow);
        else if (key === "credits") credits = value as CreditState;
        else if (key === ADOPTED_KEY) this.adopted = true;
      }
      this.credits = new CreditBook(credits);
      for (const [id, r] of this.reservations) this.holdReservation(id, r);
      for (const lease of this.leases.values())
        for (const b of BALANCES) this.credits.hold(b, lease.held[b] ?? 0, true);
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  /** Keeps a reservation in memory, its credits held. */
  private holdReservation(id: string, r: Reservation) {
    this.reservations.set(id, r);
    if (r.amount !== undefined) this.credits.hold(r.balance, r.amount);
  }

  /** Ends a reservation: its hold released (charged by the caller when found) or, if it was charged at admission and not found, refunded. */
  private dropReservation(id: string, r: Reservation, found: boolean, now: number, change: Change) {
    this.reservations.delete(id);
    change.deletes.push(`r:${id}`);
    if (r.amount !== undefined) this.credits.release(r.balance, r.amount);
    else if (!found) this.credits.refundCharged(r.balance, r.fromPlan ?? 0, r.fromPack ?? 0, r.month, now);
  }

  /**
   * Ends the windows reservation `id`'s call asked for: those it was billed for are kept, opening
   * now (`charged` says what each request cost); the others stay closed. Answers those kept.
   * Reservations made before windows were kept at settlement had theirs opened in the table.
   */
  private endWindows(
    id: string,
    opened: OpenedWindows | true,
    kept: readonly string[] | "all",
    now: number,
    charged: (fingerprint: string) => Amounts | null = () => null,
  ): string[] {
    if (opened === true) {
      if (!kept.length) {
        this.repeatWindows.closeOpenedInTable(id);
        return [];
      }
      return this.repeatWindows.settleOpenedInTable(id, kept === "all" ? undefined : kept)
        ? kept === "all"
          ? []
          : [...kept]
        : [];
    }
    if (kept === "all") return [];
    if (kept.length)
      this.repeatWindows.keep(
        kept.map((fingerprint) => ({ fingerprint, charged: charged(fingerprint) })),
        { ...opened, billedAt: now, call: id },
      );
    return [...kept];
  }

  /** Requests another call was billed for since (a window kept under another call): this call is their repeat. */
  private billedElsewhere(owner: string, fingerprints: readonly string[], now: number): Set<string> {
    const out = new Set<string>();
    for (const fingerprint of fingerprints) {
      const open = this.openWindow(fingerprint, now);
      if (open && open.call !== owner) out.add(fingerprint);
    }
    return out;
  }

  /** The repeat-window table, created on first use (objects that never bill, e.g. `ip:*`, have none). */
  private get repeatWindows(): RepeatWindows {
    this.repeatTable ??= new RepeatWindows(this.ctx.storage.sql);
    return this.repeatTable;
  }

  private get admissionKeys(): AdmissionKeys {
    this.keyTable ??= new AdmissionKeys(this.ctx.storage.sql);
    return this.keyTable;
  }

  /** Keys of grants (credit packs), kept GRANT_KEY_TTL_MS. */
  private get grantKeys(): AdmissionKeys {
    this.grantTable ??= new AdmissionKeys(this.ctx.storage.sql, "grant_keys");
    return this.grantTable;
  }

  /** True once this object has ever created the named table: chores on it are skipped before. */
  private hasTable(name: string): boolean {
    return (
      this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray()
        .length > 0
    );
  }

  /** The limiter's instant for this decision. */
  private now(): number {
    return this.clock();
  }

  /** One admission (see exchange). */
  async admit(req: AdmitRequest): Promise<AdmitResult> {
    return (await this.exchange({ plan: req.plan, accountId: req.billing?.accountId, admissions: [req] }))
      .admissions[0];
  }

  /**
   * One round trip from an isolate (limiter-client.ts), decided in one storage transaction, in this
   * order: settlements of calls that ended, late charges, counts, a lease given back, the admissions
   * one after the other exactly as if each had come alone, then a lease top-up (admissions take
   * credits before an isolate's lease may) and reservations kept alive.
   */
  async exchange(msg: LimiterMessage): Promise<LimiterReply> {
    const billingAccount =
      msg.accountId ?? msg.admissions?.find((r) => r.billing)?.billing?.accountId ?? msg.charges?.[0]?.accountId;
    if (
      billingAccount !== undefined &&
      !this.adopted &&
      (msg.charges?.length || msg.settlements?.length || msg.admissions?.some((a) => a.billing))
    )
      await this.adoptD1Windows(billingAccount);
    let kept = false;
    const reply = this.ctx.storage.transactionSync((): LimiterReply => {
      const now = this.now();
      const change = new Change();
      const settlements = (msg.settlements ?? []).map((s) => this.applySettlement(s, msg.plan, now, change));
      const charges = (msg.charges ?? []).map((c) => this.applyLateCharge(c, msg.plan, now, change));
      kept = settlements.some((s) => s.billed.length && s.charged) || charges.some((c) => c.billed);
      this.applyCounts(msg.counts ?? [], now, change);
      const closing = msg.lease?.close ? this.applyLease(msg.lease, msg.plan, now, change) : undefined;
      const admissions = (msg.admissions ?? []).map((req) => this.admitOnce(req, now, change));
      const lease = closing ?? (msg.lease ? this.applyLease(msg.lease, msg.plan, now, change) : undefined);
      this.keepAlive(msg.extend ?? [], now, change);
      this.persist(change);
      const out: LimiterReply = { settlements, charges, admissions };
      if (lease) out.lease = lease;
      if (msg.withBalances) out.balances = this.credits.view(msg.plan, now);
      return out;
    });
    if (this.reservations.size || this.leases.size) this.armAlarmIn(this.nextExpiry(this.now()));
    if (kept) this.armAlarmIn(SYNC_DELAY_MS);
    if ((reply.admissions.length || reply.charges.length) && this.keyTable)
      this.armAlarmIn(ADMISSION_KEY_TTL_MS + SECOND);
    return reply;
  }

  /** Milliseconds until the first reservation or lease expires (at least a second). */
  private nextExpiry(now: number): number {
    let first = Infinity;
    for (const r of this.reservations.values()) first = Math.min(first, r.at + RESERVATION_TTL_MS);
    for (const l of this.leases.values()) first = Math.min(first, l.at + LEASE_TTL_MS);
    return Math.max(SECOND, first - now + SECOND);
  }

  /**
   * An admission decided once per key: sent again, the first answer comes back (a key whose
   * reservations the sweep released is forgotten with them, so a bulk chunk sent anew is decided anew).
   */
  private admitOnce(req: AdmitRequest, now: number, change: Change): AdmitResult {
    const known = req.key ? this.admissionKeys.find<AdmitResult>(req.key) : null;
    if (known) {
      // Asked again (a bulk chunk delivered again): its reservations are in use from now on.
      if (known.admitted) this.keepAlive(known.reservationIds, now, change);
      return known;
    }
    const result = this.decide(req, now, change);
    // A refusal is kept too: the same message sent again (its reply lost, or sent by another
    // request meanwhile) is answered the same, never admitted behind a reply already taken. Not a
    // bulk chunk's (`partial`): its deliveries ask again on purpose, after a top-up.
    if (req.key && (result.admitted || !req.partial)) this.admissionKeys.remember(req.key, now, result);
    return result;
  }

  /** Reservations still in use: their age starts again now (the sweep releases them RESERVATION_TTL_MS later). */
  private keepAlive(ids: readonly string[], now: number, change: Change) {
    for (const id of ids) {
      const r = this.reservations.get(id);
      if (!r) continue;
      r.at = now;
      change.writes[`r:${id}`] = r;
    }
  }

  private anyReservationOf(key: string): boolean {
    for (const id of this.reservations.keys()) if (keyOf(id) === key) return true;
    return false;
  }

  private decide(req: AdmitRequest, now: number, change: Change): AdmitResult {
    const packCredits = this.credits.pack(now)?.remaining ?? 0;
    let state: GroupState | undefined;
    let limits: Limits | undefined;
    if (req.group) {
      limits = req.limits ?? effectiveLimits(req.plan, req.group, packCredits);
      state = this.groupState(req.group, now);
      const refusal = this.firstExceeded(state, limits, now);
      if (refusal) return { admitted: false, ...refusal, snapshot: this.snapshot(state, limits, now) };
    }
    const snapshot = () => (state && limits ? this.snapshot(state, limits, now) : null);

    // docs/wire-contract.md §3.2: a request with an open window is a repeat and costs nothing; the others cost theirs.
    const cost: Amounts = { ...req.cost };
    const repeats: Record<string, number | null> = {};
    const fresh: string[] = [];
    const refused: string[] = [];
    let shortOf: { balance: CreditBalance; available: number; needed: number } | undefined;
    for (const { fingerprint, cost: own } of req.billing?.requests ?? []) {
      if (fingerprint in repeats || fresh.includes(fingerprint) || refused.includes(fingerprint)) continue;
      const open = this.openWindow(fingerprint, now);
      if (open) {
        repeats[fingerprint] = open.billedAt;
        continue;
      }
      if (req.partial) {
        // In order, while the balance covers each request whole.
        const short = shortOf
          ? undefined
          : BALANCES.find(
              (b) => (own[b] ?? 0) > 0 && this.credits.available(req.plan, b, now) - (cost[b] ?? 0) < (own[b] ?? 0),
            );
        // `short` is looked for only while no request was short yet.
        if (short)
          shortOf = {
            balance: short,
            available: Math.max(0, this.credits.available(req.plan, short, now) - (cost[short] ?? 0)),
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
      const available = this.credits.available(req.plan, balance, now);
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

    // Every change of this admission goes to storage in the one transaction exchange() runs.
    if (state && req.group) {
      state.second = { count: state.second.count + 1, last: Math.max(state.second.last, now) };
      state.minute = { count: state.minute.count + 1, last: Math.max(state.minute.last, now) };
      state.daily += 1;
      this.groups.set(req.group, state);
      change.writes[`g:${req.group}`] = state;
    }
    const key = req.key ?? crypto.randomUUID();
    const reservationIds: string[] = [];
    for (const balance of BALANCES) {
      const amount = cost[balance] ?? 0;
      if (amount <= 0) continue;
      const id = `${key}.${balance}`;
      const r: Reservation = { balance, amount, at: now };
      this.holdReservation(id, r);
      change.writes[`r:${id}`] = r;
      reservationIds.push(id);
    }
    const billing = req.billing;
    // The requests it may be billed for belong to the call's first reservation: its settlement
    // keeps their windows (billed) or none. Nothing is written to the table before.
    if (billing && fresh.length && reservationIds.length) {
      const owner = reservationIds[0];
      const held = this.reservations.get(owner);
      if (!held) throw new Error("a reservation just held is missing");
      held.windows = {
        fingerprints: fresh,
        accountId: billing.accountId,
        capability: billing.capability,
        source: billing.source,
        billedAt: now,
      };
    }
    const result: AdmitResult = { admitted: true, reservationIds, snapshot: snapshot() };
    if (billing) Object.assign(result, { repeats, reserved: cost });
    if (req.partial && refused.length) Object.assign(result, { refused, shortOf });
    if (req.withBalances) result.balances = this.credits.view(req.plan, now);
    return result;
  }

  /**
   * The window of `fingerprint` open at `now`: a request billed less than 30 days ago. A call still
   * running opens none: identical calls running side by side each hold their cost, and whichever is
   * charged first is billed, the others are its repeats (so a call that fails or finds nothing
   * never leaves another one free). Rows opened by a running call before windows were kept at
   * settlement (`reservation` set) are not open either.
   */
  private openWindow(fingerprint: string, now: number): OpenWindow | null {
    const open = this.repeatWindows.find(fingerprint, now);
    return open && open.reservation == null ? open : null;
  }

  /**
   * The windows D1 held before this object held them (billed_requests, written by the Worker before
   * the limiter kept the windows), taken over once per object so a repeat billed before the move stays free. Runs before
   * the first message that bills, with every other event held back. Can go once every window billed
   * before the move has closed (30 days after it shipped).
   */
  private async adoptD1Windows(accountId: number): Promise<void> {
    await this.ctx.blockConcurrencyWhile(async () => {
      if (this.adopted) return;
      let rows: { fingerprint: string; billedAt: number }[];
      try {
        rows = await d1Windows(this.env.DB, accountId, this.now());
      } catch (err) {
        // Not fatal: decide without them now, try again with the next message that bills.
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
   * Ends a call. Not found: its holds are released (refunded). Found: they are charged, corrected to
   * what the answer really used: less is simply not charged, more is charged as far as the balance
   * covers it (an answer already given is never charged beyond the balance, nor left free). With `parts` (a bulk chunk: one reservation for many
   * requests) each billed request is charged its own cost that way. The billed windows are kept,
   * opening now, each with what its request was charged. Settling again, or after the sweep,
   * changes nothing: the answer then comes from the windows kept.
   */
  private applySettlement(s: Settlement, plan: string, now: number, change: Change): SettlementOutcome {
    const owner = s.reservationIds[0];
    const billedList = s.parts ? s.parts.map((p) => p.fingerprint) : s.billed;
    const live = s.reservationIds
      .map((id) => [id, this.reservations.get(id)] as const)
      .filter((e): e is readonly [string, Reservation] => e[1] !== undefined);
    if (!live.length) return this.settledBefore(owner, s.found ? (billedList ?? []) : [], now);
    const opened = owner !== undefined ? this.reservations.get(owner)?.windows : undefined;
    // The requests this call may be billed for; one another call was billed for meanwhile is its repeat.
    const asked =
      opened && opened !== true
        ? opened.fingerprints.filter((fp) => !billedList || billedList.includes(fp))
        : [...(billedList ?? [])];
    const elsewhere =
      opened && opened !== true && s.found ? this.billedElsewhere(owner, asked, now) : new Set<string>();
    const billing = s.found ? asked.filter((fp) => !elsewhere.has(fp)) : [];
    // A single call whose request was billed elsewhere is a repeat: nothing is charged.
    const found = s.found && !(opened && opened !== true && !billing.length);
    for (const [id, r] of live) this.dropReservation(id, r, found, now, change);
    let charged: Amounts = {};
    let parts: Amounts[] | undefined;
    if (found && s.parts) {
      parts = this.chargeParts(
        s.parts.map((p) => (elsewhere.has(p.fingerprint) ? { ...p, cost: {} } : p)),
        live,
        plan,
        now,
      );
      for (const part of parts)
        for (const [b, n] of Object.entries(part) as [CreditBalance, number][]) charged[b] = (charged[b] ?? 0) + n;
    } else if (found) charged = this.chargeAdjusted(s.adjust, live, plan, now);
    const chargedFor = (fingerprint: string): Amounts | null => {
      if (parts && s.parts) return parts[s.parts.findIndex((p) => p.fingerprint === fingerprint)] ?? null;
      return billing.length === 1 ? charged : null;
    };
    // Legacy rows opened while their call ran are kept all when found and nothing says which.
    const kept = opened
      ? this.endWindows(owner, opened, opened === true && found && !billedList ? "all" : billing, now, chargedFor)
      : [];
    const out: SettlementOutcome = { billed: kept, at: kept.length ? now : null, charged };
    if (parts) out.parts = parts;
    return out;
  }

  /** A settlement whose reservations are gone (applied before, or swept): the windows kept under its call say what was billed. */
  private settledBefore(owner: string | undefined, fingerprints: readonly string[], now: number): SettlementOutcome {
    const billed: string[] = [];
    const parts: (Amounts | null)[] = [];
    let at: number | null = null;
    for (const fingerprint of fingerprints) {
      const open = owner === undefined ? null : this.repeatWindows.find(fingerprint, now);
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
  private chargeAdjusted(
    adjustments: Amounts,
    live: readonly (readonly [string, Reservation])[],
    plan: string,
    now: number,
  ): Amounts {
    const charged: Amounts = {};
    for (const balance of BALANCES) {
      const mine = live.filter(([, r]) => r.balance === balance);
      const held = mine.reduce((n, [, r]) => n + (r.amount ?? 0), 0);
      const prepaid = mine.reduce(
        (n, [, r]) => n + (r.amount === undefined ? (r.fromPlan ?? 0) + (r.fromPack ?? 0) : 0),
        0,
      );
      const adjust = adjustments[balance] ?? 0;
      let amount = held;
      let back = 0;
      if (adjust < 0) {
        const cut = Math.min(-adjust, held);
        amount -= cut;
        back = Math.min(-adjust - cut, prepaid);
      }
      // The holds were released, so what they covered is available again. An answer that used more
      // than was held is charged what the balance still covers (never beyond it, never nothing).
      if (adjust > 0) amount += Math.min(adjust, Math.max(0, this.credits.available(plan, balance, now) - amount));
      this.credits.charge(plan, balance, amount, now);
      if (back > 0) this.giveBackLegacy(balance, back, mine, now);
      if (amount + prepaid - back > 0) charged[balance] = amount + prepaid - back;
    }
    return charged;
  }

  /**
   * Many requests' holds charged request by request: each its cost up to what was reserved for it
   * (covered by the holds just released), then, in order, what it costs beyond that as far as the
   * balance covers it. Answers what each request was charged.
   */
  private chargeParts(
    parts: readonly SettlementPart[],
    live: readonly (readonly [string, Reservation])[],
    plan: string,
    now: number,
  ): Amounts[] {
    const prepaid: Amounts = {};
    for (const [, r] of live)
      if (r.amount === undefined)
        prepaid[r.balance] = (prepaid[r.balance] ?? 0) + (r.fromPlan ?? 0) + (r.fromPack ?? 0);
    const out = parts.map((part) => {
      const base: Amounts = {};
      for (const b of BALANCES) {
        const n = Math.min(part.cost[b] ?? 0, part.reserved[b] ?? 0);
        if (n <= 0) continue;
        base[b] = n;
        // Charged at admission by an older limiter: already paid.
        const paid = Math.min(n, prepaid[b] ?? 0);
        prepaid[b] = (prepaid[b] ?? 0) - paid;
        this.credits.charge(plan, b, n - paid, now);
      }
      return base;
    });
    parts.forEach((part, i) => {
      for (const b of BALANCES) {
        const extra = Math.min((part.cost[b] ?? 0) - (out[i][b] ?? 0), this.credits.available(plan, b, now));
        if (extra <= 0) continue;
        this.credits.charge(plan, b, extra, now);
        out[i][b] = (out[i][b] ?? 0) + extra;
      }
    });
    for (const b of BALANCES) {
      const back = prepaid[b] ?? 0;
      if (back > 0)
        this.giveBackLegacy(
          b,
          back,
          live.filter(([, r]) => r.balance === b),
          now,
        );
    }
    return out;
  }

  /** A legacy reservation (charged at admission) trued down: gives back `back` credits, the pack first. */
  private giveBackLegacy(
    balance: CreditBalance,
    back: number,
    mine: readonly (readonly [string, Reservation])[],
    now: number,
  ) {
    const fromPack = mine.reduce((n, [, r]) => n + (r.fromPack ?? 0), 0);
    const toPack = Math.min(back, fromPack);
    const month = mine[0]?.[1].month;
    this.credits.refundCharged(balance, back - toPack, toPack, month, now);
  }

  /**
   * Decides a call answered before it was admitted here (LateCharge): a repeat costs nothing; the
   * others are charged from the isolate's lease while it holds the credits, else from the balance if
   * it covers the whole cost, else not at all. A billed call's window is kept at once, opening now.
   */
  private applyLateCharge(c: LateCharge, plan: string, now: number, change: Change): ChargeDecision {
    // Decided not billed before (no window says so): answered the same.
    const refused = this.admissionKeys.find<ChargeDecision>(`charge:${c.key}`);
    if (refused) return refused;
    const open = this.openWindow(c.fingerprint, now);
    if (open) return open.call === c.key ? { billed: true, at: open.billedAt } : { billed: false, at: null };
    const lease = c.lease ? this.leases.get(c.lease) : undefined;
    const fromLease = lease !== undefined && BALANCES.every((b) => (lease.held[b] ?? 0) >= (c.cost[b] ?? 0));
    if (!fromLease && !BALANCES.every((b) => this.credits.available(plan, b, now) >= (c.cost[b] ?? 0))) {
      const unbilled: ChargeDecision = { billed: false, at: null };
      this.admissionKeys.remember(`charge:${c.key}`, now, unbilled);
      return unbilled;
    }
    for (const balance of BALANCES) {
      const amount = c.cost[balance] ?? 0;
      if (amount <= 0) continue;
      if (fromLease) {
        lease.held[balance] = (lease.held[balance] ?? 0) - amount;
        this.credits.release(balance, amount, true);
      }
      this.credits.charge(plan, balance, amount, now);
    }
    if (fromLease) {
      lease.at = now;
      change.writes[`l:${c.lease}`] = lease;
    }
    this.repeatWindows.keep([{ fingerprint: c.fingerprint, charged: c.cost }], {
      accountId: c.accountId,
      capability: c.capability,
      source: c.source,
      billedAt: now,
      call: c.key,
    });
    return { billed: true, at: now };
  }

  /**
   * A lease asked for, topped up or given back. A top-up adds, per balance, what is asked if `floor`
   * credits stay available after it (near the end of a balance every call is admitted first again).
   */
  private applyLease(req: LeaseRequest, plan: string, now: number, change: Change): LeaseState {
    let lease = this.leases.get(req.id);
    if (req.close) {
      if (lease) this.endLease(req.id, lease, change);
      return { id: req.id, held: {}, open: false, refused: [] };
    }
    if (lease && req.seq <= lease.seq) return { id: req.id, held: { ...lease.held }, open: true, refused: [] };
    // An id this limiter does not hold is new, unless its top-ups were seen before (released by the sweep).
    if (!lease && req.seq > 1) return { id: req.id, held: {}, open: false, refused: [] };
    const refused: CreditBalance[] = [];
    const grant: Amounts = {};
    for (const balance of BALANCES) {
      const want = req.want?.[balance] ?? 0;
      if (want <= 0) continue;
      if (this.credits.available(plan, balance, now) - want < (req.floor ?? 0)) refused.push(balance);
      else grant[balance] = want;
    }
    if (!lease) {
      if (!Object.keys(grant).length) return { id: req.id, held: {}, open: false, refused };
      lease = { held: {}, at: now, seq: 0 };
      this.leases.set(req.id, lease);
    }
    lease.seq = req.seq;
    for (const [balance, amount] of Object.entries(grant) as [CreditBalance, number][]) {
      lease.held[balance] = (lease.held[balance] ?? 0) + amount;
      this.credits.hold(balance, amount, true);
    }
    lease.at = now;
    change.writes[`l:${req.id}`] = lease;
    return { id: req.id, held: { ...lease.held }, open: true, refused };
  }

  private endLease(id: string, lease: Lease, change: Change) {
    for (const b of BALANCES) this.credits.release(b, lease.held[b] ?? 0, true);
    this.leases.delete(id);
    delete change.writes[`l:${id}`];
    change.deletes.push(`l:${id}`);
  }

  /** Adds requests admitted elsewhere to their groups' counters. */
  private applyCounts(counts: GroupCount[], now: number, change: Change) {
    for (const { group, at, key } of counts) {
      if (key) {
        if (this.countKeys.has(key)) continue;
        if (this.countKeys.size >= COUNT_KEYS) {
          const [oldest] = this.countKeys;
          this.countKeys.delete(oldest);
        }
        this.countKeys.add(key);
      }
      const stored = this.groups.get(group);
      // A count from a UTC day already over belongs to no counter that is still shown.
      if (stored && utcDay(at) < stored.day) continue;
      const state = this.groupState(group, now);
      state.second = { count: state.second.count + 1, last: Math.max(state.second.last, now) };
      state.minute = { count: state.minute.count + 1, last: Math.max(state.minute.last, now) };
      state.daily += 1;
      this.groups.set(group, state);
      change.writes[`g:${group}`] = state;
    }
  }

  /** Called inside a storage transaction: the key-value half of a decision (the windows are written as they change). */
  private persist(change: Change) {
    if (this.credits.dirty) {
      change.writes.credits = this.credits.stored();
      this.credits.dirty = false;
    }
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
  status(plan: string, groups: RateGroup[]) {
    const now = this.now();
    const pack = this.credits.pack(now);
    const perGroup: Record<
      string,
      { limits: Limits; used: { second: number; minute: number; daily: number }; snapshot: LimitSnapshot }
    > = {};
    for (const group of groups) {
      const limits = effectiveLimits(plan, group, pack?.remaining ?? 0);
      const state = this.groupState(group, now);
      perGroup[group] = {
        limits,
        used: { second: state.second.count, minute: state.minute.count, daily: state.daily },
        snapshot: this.snapshot(state, limits, now),
      };
    }
    return { groups: perGroup, balances: this.credits.view(plan, now), pack };
  }

  balances(plan: string): Record<CreditBalance, BalanceView> {
    return this.credits.view(plan, this.now());
  }

  /** Adds a credit pack; granted once per `key` (an operator request sent again grants nothing twice). */
  grantPack(credits: number, key?: string) {
    const pack = this.ctx.storage.transactionSync(() => {
      const now = this.now();
      if (key) {
        // Kept with the admissions' keys (10 minutes) before grants had a table of their own.
        const known =
          this.grantKeys.find<{ size: number; remaining: number }>(`pack:${key}`) ??
          (this.hasTable("admission_keys")
            ? this.admissionKeys.find<{ size: number; remaining: number }>(`pack:${key}`)
            : null);
        if (known) return known;
      }
      const granted = { ...this.credits.grantPack(credits, now) };
      if (key) this.grantKeys.remember(`pack:${key}`, now, granted);
      this.persist(new Change());
      return granted;
    });
    if (key) this.armAlarmIn(GRANT_KEY_TTL_MS + SECOND);
    return pack;
  }

  /**
   * One alarm for its chores: release holds whose isolate died (reservations after
   * RESERVATION_TTL_MS, leases after LEASE_TTL_MS), send billed requests to the D1 copy
   * (SYNC_DELAY_MS after the first one waiting), forget old admission keys, and delete windows
   * closed for good (30 days after billing), which keeps the object's storage bounded.
   */
  override async alarm() {
    this.alarmAt = null;
    const now = this.now();
    this.ctx.storage.transactionSync(() => {
      const change = new Change();
      for (const [id, r] of this.reservations) {
        if (now - r.at < RESERVATION_TTL_MS) continue;
        if (r.windows) this.endWindows(id, r.windows, [], now);
        this.dropReservation(id, r, false, now, change);
        // A bulk chunk sent again under the same key decides anew.
        if (this.keyTable) this.admissionKeys.forget(keyOf(id));
      }
      for (const [id, lease] of this.leases) if (now - lease.at >= LEASE_TTL_MS) this.endLease(id, lease, change);
      if (this.keyTable || this.hasTable("admission_keys"))
        this.admissionKeys.sweep(now - ADMISSION_KEY_TTL_MS, (key) => this.anyReservationOf(key));
      if (this.grantTable || this.hasTable("grant_keys")) this.grantKeys.sweep(now - GRANT_KEY_TTL_MS);
      this.persist(change);
    });
    const next: number[] = [];
    if (this.reservations.size || this.leases.size) next.push(now + this.nextExpiry(now));
    if (this.keyTable) {
      const oldest = this.admissionKeys.oldest();
      if (oldest !== null) next.push(oldest + ADMISSION_KEY_TTL_MS + SECOND);
    }
    if (this.grantTable) {
      const oldest = this.grantKeys.oldest();
      if (oldest !== null) next.push(oldest + GRANT_KEY_TTL_MS + SECOND);
    }
    if (this.repeatTable || this.hasTable("repeat_windows")) {
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
    if (next.length) this.armAlarmIn(Math.max(SECOND, Math.min(...next) - now));
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
    if (!this.repeatTable && !this.hasTable("repeat_windows")) return;
    for (;;) {
      const batch = this.repeatWindows.unsynced(SYNC_BATCH);
      if (!batch.length) return;
      await copyCharges(this.env.DB, batch);
      this.repeatWindows.markSynced(batch);
      if (batch.length < SYNC_BATCH) return;
    }
  }

  private firstExceeded(
    state: GroupState,
    limits: Limits,
    now: number,
  ): { reason: "rps" | "rpm" | "daily"; retryAfter: number } | null {
    // The longest wait is the one the caller needs to know about.
    if (limits.daily && state.daily >= limits.daily) return { reason: "daily", retryAfter: secondsToUtcMidnight(now) };
    if (limits.minute && state.minute.count >= limits.minute) return { reason: "rpm", retryAfter: 60 };
    if (limits.second && state.second.count >= limits.second) return { reason: "rps", retryAfter: 1 };
    return null;
  }

  /** A group's counters as of `now`; the UTC day never moves back (a day already left is not entered again). */
  private groupState(group: string, now: number): GroupState {
    const s = this.groups.get(group) ?? {
      second: { count: 0, last: 0 },
      minute: { count: 0, last: 0 },
      day: utcDay(now),
      daily: 0,
    };
    const today = utcDay(now);
    // biome-ignore lint/complexity/useMathMinMax: days are "YYYY-MM-DD" strings, compared as text, not numbers
    const day = today > s.day ? today : s.day;
    return {
      second: now - s.second.last >= SECOND ? { count: 0, last: s.second.last } : s.second,
      minute: now - s.minute.last >= MINUTE ? { count: 0, last: s.minute.last } : s.minute,
      day,
      daily: s.day === day ? s.daily : 0,
    };
  }

  private snapshot(state: GroupState, limits: Limits, now: number): LimitSnapshot {
    return limitSnapshot(limits, { second: state.second.count, minute: state.minute.count, daily: state.daily }, now);
  }

  /**
   * Sets the storage alarm `ms` from now unless it is already set for that instant or earlier. The
   * alarm is a real timer: it runs on the runtime's clock, the chores it finds due on the limiter's.
   */
  private armAlarmIn(ms: number) {
    const at = Date.now() + ms;
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
