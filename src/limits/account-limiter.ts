import { DurableObject } from "cloudflare:workers";
import { logError } from "../request-context.js";
import { decideAdmission } from "./admission-decision.js";
import { ADMISSION_KEY_TTL_MS, AdmissionKeys, GRANT_KEY_TTL_MS } from "./admission-keys.js";
import { CreditBook, type CreditState } from "./credit-book.js";
import type { BalanceView, CreditBalance, RateGroup } from "./groups.js";
import { type Lease, LeaseBook } from "./lease-book.js";
import type { LimiterBooks } from "./limiter-books.js";
import { Change } from "./limiter-change.js";
import type { AdmitRequest, AdmitResult, LimiterMessage, LimiterReply, LimitSnapshot } from "./limiter-messages.js";
import { migrateLimiter } from "./limiter-schema.js";
import { type GroupState, RateCounters } from "./rate-counters.js";
import { RateShareBook } from "./rate-share-book.js";
import { effectiveLimits, type Limits } from "./rate-table.js";
import { RefusedCharges } from "./refused-charges.js";
import { REPEAT_WINDOW_MS, RepeatWindows, SYNC_BATCH } from "./repeat-windows.js";
import { keyOf, type Reservation, ReservationBook } from "./reservation-book.js";
import { applyLateCharge, applySettlement } from "./settlements.js";
import { copyCharges } from "./usage-copy.js";

export type { BalanceView } from "./groups.js";
export { limitSnapshot, secondsToNextMinute, secondsToUtcMidnight } from "./rate-counters.js";
export { RESERVATION_TTL_MS } from "./reservation-book.js";

/**
 * One per account (workspace members and every key use the owner's object). It holds the rate-limit
 * counters of every endpoint group, the credit balances and what is held of them, and the 30-day
 * repeat windows, so one RPC decides all of them atomically: a Durable Object runs one request at a
 * time, every decision runs in one synchronous storage transaction, and the answer is held until that
 * transaction persists.
 *
 * The object is a shell: it loads and stores what it holds (the books: credit-book.ts,
 * reservation-book.ts, lease-book.ts, rate-counters.ts, repeat-windows.ts, admission-keys.ts; its
 * schema versioned by limiter-schema.ts), and hands every decision to plain modules
 * (admission-decision.ts, settlements.ts).
 *
 * Every decision is made on the limiter's own clock (`clock`): the second, minute, UTC day and UTC
 * month a request counts in, when a window opens, when a hold expires. Instants sent by isolates
 * are never trusted for these. Every message is harmless when it is sent twice: an admission by its
 * key (admission-keys.ts), a settlement by its reservations, a late charge by its key, a lease
 * top-up by its sequence number, a pack grant by its key (billing.md lists them).
 */

interface FixedWindow {
  start: number;
  count: number;
}

const SECOND = 1_000;
/** How long a billed request waits in the object before the D1 copy receives it (one batch per account). */
export const SYNC_DELAY_MS = 1_000;
/** After a failed copy to D1 the alarm tries again this much later. */
const SYNC_RETRY_MS = 30_000;
/** Storage key: the account's plan, as POST /v1/plan last set it (setPlan). */
const PLAN_KEY = "plan";

export class AccountLimiter extends DurableObject<{ DB: D1Database }> implements LimiterBooks {
  /** The limiter's clock: every instant it decides with (tests move it to cross days and months). */
  clock: () => number = () => Date.now();
  credits!: CreditBook;
  reservations!: ReservationBook;
  leases!: LeaseBook;
  readonly counters = new RateCounters();
  private windows = new Map<string, FixedWindow>();
  /** When the storage alarm is set for, null when none is (read once, then kept in step). */
  private alarmAt: number | null = null;
  /** The account's plan once told (setPlan); until then each message's plan is the account's. */
  private plan: string | undefined;
  private repeatTable: RepeatWindows | undefined;
  private keyTable: AdmissionKeys | undefined;
  readonly refusedCharges = new RefusedCharges(() => this.admissionKeys);
  private grantTable: AdmissionKeys | undefined;
  private shareTable: RateShareBook | undefined;
  private syncing: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: { DB: D1Database }) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      ctx.storage.transactionSync(() => migrateLimiter(ctx.storage, this.now()));
      let credits: CreditState | undefined;
      const reservations: [string, Reservation][] = [];
      const leases: [string, Lease][] = [];
      for (const [key, value] of ctx.storage.kv.list<unknown>()) {
        if (key.startsWith("g:")) this.counters.load(key.slice(2), value as GroupState);
        else if (key.startsWith("r:")) reservations.push([key.slice(2), value as Reservation]);
        else if (key.startsWith("l:")) leases.push([key.slice(2), value as Lease]);
        else if (key.startsWith("w:")) this.windows.set(key.slice(2), value as FixedWindow);
        else if (key === "credits") credits = value as CreditState;
        else if (key === PLAN_KEY) this.plan = value as string;
      }
      this.credits = new CreditBook(credits);
      this.reservations = new ReservationBook(this.credits);
      this.leases = new LeaseBook(this.credits);
      for (const [id, r] of reservations) this.reservations.hold(id, r);
      for (const [id, lease] of leases) this.leases.load(id, lease);
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  /** The repeat-window table, created on first use (objects that never bill, e.g. `ip:*`, have none). */
  get repeatWindows(): RepeatWindows {
    this.repeatTable ??= new RepeatWindows(this.ctx.storage.sql);
    return this.repeatTable;
  }

  get admissionKeys(): AdmissionKeys {
    this.keyTable ??= new AdmissionKeys(this.ctx.storage.sql);
    return this.keyTable;
  }

  /** The isolates' shares of the daily limits, created on first use. */
  private get rateShares(): RateShareBook {
    this.shareTable ??= new RateShareBook(this.ctx.storage.sql);
    return this.shareTable;
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

  /**
   * The plan a decision is made under: the account's, once POST /v1/plan has told this object
   * (setPlan). A message carries the plan its isolate read with the caller's credential, which an
   * auth cache keeps up to AUTH_CACHE_TTL_MS after a change, and a line keeps until its account's
   * next call: an older plan must not decide a charge (a smaller one would leave an answer free).
   * An account whose plan never changed since its limiter existed sends the plan D1 holds.
   */
  private planOf(sent: string): string {
    return this.plan ?? sent;
  }

  /** The account's plan changed (D1 already holds it): every decision from now on is made under it. */
  async setPlan(plan: string): Promise<void> {
    this.ctx.storage.kv.put(PLAN_KEY, plan);
    this.plan = plan;
  }

  /** The limiter's instant for this decision. */
  private now(): number {
    return this.clock();
  }

  /** One admission (see exchange). */
  async admit(req: AdmitRequest): Promise<AdmitResult> {
    return (await this.exchange({ plan: req.plan, admissions: [req] })).admissions[0];
  }

  /**
   * One round trip from an isolate (limiter-client.ts), decided in one storage transaction, in this
   * order: settlements of calls that ended, late charges, counts, a lease given back, the admissions
   * one after the other exactly as if each had come alone, then a lease top-up (admissions take
   * credits before an isolate's lease may), rate shares (admissions count before a share may take
   * what is left of a day) and reservations kept alive.
   */
  async exchange(msg: LimiterMessage): Promise<LimiterReply> {
    let kept = false;
    const plan = this.planOf(msg.plan);
    const reply = this.ctx.storage.transactionSync((): LimiterReply => {
      const now = this.now();
      const change = new Change();
      const settlements = (msg.settlements ?? []).map((s) => applySettlement(this, s, plan, now, change));
      const charges = (msg.charges ?? []).map((c) => applyLateCharge(this, c, plan, now, change));
      kept = settlements.some((s) => s.billed.length && s.charged) || charges.some((c) => c.billed);
      this.counters.applyCounts(msg.counts ?? [], now, change);
      const closing = msg.lease?.close ? this.leases.apply(msg.lease, plan, now, change) : undefined;
      const admissions = (msg.admissions ?? []).map((req) => this.admitOnce(req, now, change));
      const lease = closing ?? (msg.lease ? this.leases.apply(msg.lease, plan, now, change) : undefined);
      const pack = msg.rateShares?.length ? (this.credits.pack(now)?.remaining ?? 0) : 0;
      const shares = msg.rateShares?.map((r) =>
        this.rateShares.apply(r, effectiveLimits(plan, r.group, pack), this.counters, now, change),
      );
      this.reservations.keepAlive(msg.extend ?? [], now, change);
      this.persist(change);
      const out: LimiterReply = { settlements, charges, admissions };
      if (lease) out.lease = lease;
      if (shares) out.rateShares = shares;
      if (msg.withBalances) out.balances = this.credits.view(plan, now);
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
    const first = Math.min(this.reservations.firstExpiry(), this.leases.firstExpiry());
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
      if (known.admitted) this.reservations.keepAlive(known.reservationIds, now, change);
      return known;
    }
    const result = decideAdmission(this, { ...req, plan: this.planOf(req.plan) }, now, change);
    // A refusal is kept too: the same message sent again (its reply lost, or sent by another
    // request meanwhile) is answered the same, never admitted behind a reply already taken. Not a
    // bulk chunk's (`partial`): its deliveries ask again on purpose, after a top-up.
    if (req.key && (result.admitted || !req.partial)) this.admissionKeys.remember(req.key, now, result);
    return result;
  }

  /** Called inside a storage transaction: the key-value half of a decision (the tables are written as they change). */
  private persist(change: Change) {
    if (this.credits.dirty) {
      change.put("credits", this.credits.stored());
      this.credits.dirty = false;
    }
    for (const [key, value] of Object.entries(change.writes)) this.ctx.storage.kv.put(key, value);
    for (const key of change.deletes) this.ctx.storage.kv.delete(key);
  }

  /** An account's fixed-window limits (keys, reveal): same for every plan, X-RateLimit-* headers. */
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
  status(sent: string, groups: RateGroup[]) {
    const plan = this.planOf(sent);
    const now = this.now();
    const pack = this.credits.pack(now);
    const perGroup: Record<
      string,
      { limits: Limits; used: { second: number; minute: number; daily: number }; snapshot: LimitSnapshot }
    > = {};
    for (const group of groups) {
      const limits = effectiveLimits(plan, group, pack?.remaining ?? 0);
      const state = this.counters.state(group, now);
      perGroup[group] = {
        limits,
        used: { second: state.second.count, minute: state.minute.count, daily: state.daily },
        snapshot: this.counters.snapshot(state, limits, now),
      };
    }
    return { groups: perGroup, balances: this.credits.view(plan, now), pack };
  }

  balances(plan: string): Record<CreditBalance, BalanceView> {
    return this.credits.view(this.planOf(plan), this.now());
  }

  /** Adds a credit pack; granted once per `key` (an operator request sent again grants nothing twice). */
  grantPack(credits: number, key?: string) {
    const pack = this.ctx.storage.transactionSync(() => {
      const now = this.now();
      const known = key ? this.grantKeys.find<{ size: number; remaining: number }>(`pack:${key}`) : null;
      if (known) return known;
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
      for (const [id, r] of this.reservations.expired(now)) {
        this.reservations.drop(id, r, change);
        // A bulk chunk sent again under the same key decides anew.
        if (this.keyTable) this.admissionKeys.forget(keyOf(id));
      }
      this.leases.sweep(now, change);
      if (this.keyTable || this.hasTable("admission_keys"))
        this.admissionKeys.sweep(now - ADMISSION_KEY_TTL_MS, (key) => this.reservations.anyOf(key));
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
