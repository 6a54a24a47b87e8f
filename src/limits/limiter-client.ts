import type { Env } from "../env.js";
import { isolateValue } from "../platform/isolate-state.js";
import { logError } from "../request-context.js";
import { AccountLine, type LeasePaid, type Message } from "./account-line.js";
import { PendingDecision } from "./billing-decision.js";
import { type ClientOptions, DEFAULT_CLIENT_OPTIONS } from "./client-options.js";
import type { Amounts } from "./credit-book.js";
import type { BalanceView, CreditBalance, RateGroup } from "./groups.js";
import type { IsolateLease } from "./isolate-lease.js";
import { IsolateMemory } from "./isolate-memory.js";
import type { IsolateRateShare } from "./isolate-rate-share.js";
import type {
  AdmitRequest,
  AdmitResult,
  ChargeDecision,
  GroupCount,
  LateCharge,
  LimiterReply,
  Settlement,
  SettlementOutcome,
} from "./limiter-messages.js";

export type { LeasePaid } from "./account-line.js";
export { type ClientOptions, DEFAULT_CLIENT_OPTIONS } from "./client-options.js";
export { BALANCES_TTL_MS } from "./isolate-memory.js";

const MAX_LINES = 5_000;
const MAX_LIMITER_IDS = 10_000;

/**
 * This isolate's side of the account limiters, and the one owner of every piece of money state an
 * isolate keeps: per account, one line of messages to its limiter (admissions waiting, settlements,
 * late charges and counts owed, the message in flight), the isolate's lease of credits, the
 * balances it last read, and the 30-day windows it knows to be open. The Worker has one
 * (`isolateClient`); tests make several to play several isolates against one limiter.
 *
 * A line sends one message at a time, carrying everything waiting on it (a busy account costs one
 * round trip per batch, not per request). Every message is harmless when sent twice (see
 * account-limiter.ts), so a message is sent again until the limiter answers it: after a failure
 * (with backoff), and when its sender stopped waiting for it (a cancelled request: any request
 * that waits on the line sends it again after RESEND_AFTER_MS). Nothing owed is dropped while the
 * isolate lives: a message the limiter does not answer for GIVE_UP_MS is given up, and what it
 * owed goes out again in the next one.
 *
 * No request awaits a promise another request created: a round trip belongs to the request that
 * started it (the runtime cancels it if that request ends first), a request awaiting only another
 * request's promise is ended as hung, and settling one request's promise from another's context is
 * refused. So waiters get plain values, looking at their line every `pollMs` on a timer of their
 * own, and decisions are handed over with PendingDecision.
 */
export class LimiterClient extends IsolateMemory {
  readonly options: ClientOptions;
  private readonly lines = new Map<number, AccountLine>();
  /**
   * Lines whose drain spent its budget with something still owed (the limiter was down longer than
   * drainBudgetMs): the isolate's next request, whatever its account, sends them again in its own
   * waitUntil, so a settlement does not wait for its account's next request (nor the sweep).
   */
  private readonly stranded = new Set<AccountLine>();
  /** Object ids per namespace (deriving one hashes the name; ids, unlike stubs, may be kept). */
  private readonly ids = new WeakMap<Env["ACCOUNT_LIMITER"], Map<number, DurableObjectId>>();

  constructor(options: Partial<ClientOptions> = {}) {
    super();
    this.options = { ...DEFAULT_CLIENT_OPTIONS, ...options };
  }

  /** This isolate's instant (ClientOptions.now). */
  now(): number {
    return this.options.now();
  }

  /** The account's limiter: one object per (owner) account. */
  limiter(env: Env, accountId: number) {
    const ns = env.ACCOUNT_LIMITER;
    let ids = this.ids.get(ns);
    if (!ids) {
      ids = new Map();
      this.ids.set(ns, ids);
    }
    let id = ids.get(accountId);
    if (!id) {
      if (ids.size >= MAX_LIMITER_IDS) ids.clear();
      id = ns.idFromName(`account:${accountId}`);
      ids.set(accountId, id);
    }
    return ns.get(id);
  }

  private line(accountId: number, plan: string): AccountLine {
    let line = this.lines.get(accountId);
    if (!line) {
      if (this.lines.size >= MAX_LINES) for (const [id, l] of this.lines) if (l.idle) this.lines.delete(id);
      line = new AccountLine(accountId, plan);
      this.lines.set(accountId, line);
    }
    line.plan = plan;
    return line;
  }

  // ---- admissions ---------------------------------------------------------------------------

  /**
   * Decides an admission on the account's limiter, with whatever the line owes. Waits on the line:
   * sends the next message itself when none is in flight (or the one in flight is stale), else
   * looks again every pollMs.
   */
  async admit(
    env: Env,
    accountId: number,
    req: AdmitRequest,
    waitUntil: (p: Promise<unknown>) => void,
    shared = false,
  ): Promise<AdmitResult> {
    this.resumeStranded(env, waitUntil);
    const line = this.line(accountId, req.plan);
    let mine = line.queue(req, shared, this.now());
    for (;;) {
      mine.seen = this.now();
      if (!mine.outcome) {
        mine.sending = true;
        try {
          await this.pump(env, line, waitUntil);
        } finally {
          mine.sending = false;
          mine.seen = this.now();
        }
      }
      // Taken for gone while it waited (it did not look for orphanMs): admitted again, under a key
      // of its own (the one released would be answered with what went back).
      if (mine.outcome && "released" in mine.outcome)
        mine = line.queue({ ...req, key: crypto.randomUUID() }, shared, this.now());
      else if (mine.outcome) break;
      else await sleep(this.options.pollMs);
    }
    if ("error" in mine.outcome) throw mine.outcome.error;
    return mine.outcome.result;
  }

  // ---- what an isolate owes its limiters -----------------------------------------------------

  /** Queues a settlement; it rides with the next round trip, or goes within settleWaitMs. */
  settle(
    env: Env,
    accountId: number,
    plan: string,
    settlement: Settlement,
    waitUntil: (p: Promise<unknown>) => void,
  ): PendingDecision<SettlementOutcome> {
    this.resumeStranded(env, waitUntil);
    const line = this.line(accountId, plan);
    const owed = { settlement, decision: new PendingDecision<SettlementOutcome>() };
    line.settlements.push(owed);
    this.forgetBalances(accountId);
    this.sendSoon(env, line, "settle", waitUntil);
    return owed.decision;
  }

  /**
   * Sends a settlement at once and answers the limiter's decision (undefined if it could not be had
   * within the drain budget: the caller keeps it and sends it again). The one way a bulk chunk's
   * billing reaches its limiter, from the delivery that ran it or from its job's alarm.
   */
  async settleNow(
    env: Env,
    accountId: number,
    plan: string,
    settlement: Settlement,
    waitUntil: (p: Promise<unknown>) => void,
  ): Promise<SettlementOutcome | undefined> {
    const decision = this.settle(env, accountId, plan, settlement, waitUntil);
    await this.flush(env, accountId);
    return decision.decided;
  }

  /** Queues a late charge (see account-limiter.ts, LateCharge) like a settlement. */
  charge(
    env: Env,
    accountId: number,
    plan: string,
    charge: LateCharge,
    paid: LeasePaid | null,
    waitUntil: (p: Promise<unknown>) => void,
  ): PendingDecision<ChargeDecision> {
    this.resumeStranded(env, waitUntil);
    const line = this.line(accountId, plan);
    const owed = { charge, paid, decision: new PendingDecision<ChargeDecision>() };
    line.charges.push(owed);
    this.forgetBalances(accountId);
    this.sendSoon(env, line, "settle", waitUntil);
    return owed.decision;
  }

  /** Queues a count of a request admitted without a round trip; it goes within countWaitMs. */
  count(env: Env, accountId: number, plan: string, count: GroupCount, waitUntil: (p: Promise<unknown>) => void): void {
    this.resumeStranded(env, waitUntil);
    const line = this.line(accountId, plan);
    line.counts.push({ ...count, key: crypto.randomUUID() });
    this.sendSoon(env, line, "count", waitUntil);
  }

  /** Keeps reservations alive with the next round trip (a bulk chunk that runs long). */
  keepAlive(
    env: Env,
    accountId: number,
    plan: string,
    reservationIds: readonly string[],
    waitUntil: (p: Promise<unknown>) => void,
  ): void {
    const line = this.line(accountId, plan);
    for (const id of reservationIds) line.extend.add(id);
    this.sendSoon(env, line, "settle", waitUntil);
  }

  /**
   * Accounts whose line owes its limiter a settlement, charge, count or keep-alive that nothing is
   * set to send: no message in flight, no wait armed, no drain running, not stranded. What an isolate owes always has
   * a sender, so this is empty; the fault harness checks it before it sends what is owed itself.
   */
  owedWithoutSender(): number[] {
    const unsent = (l: AccountLine) =>
      !l.inFlight &&
      !l.settleTimer &&
      !l.countTimer &&
      !l.draining &&
      !this.stranded.has(l) &&
      (l.settlements.length > 0 || l.charges.length > 0 || l.counts.length > 0 || l.extend.size > 0);
    return [...this.lines.values()].filter(unsent).map((l) => l.accountId);
  }

  /** Sends whatever this isolate owes the account's limiter now, and waits until the limiter has answered it. */
  async flush(env: Env, accountId: number): Promise<void> {
    const line = this.lines.get(accountId);
    if (line) await this.drain(env, line, line.nextSeq);
  }

  /**
   * The lease this isolate pays the account's late-charged calls from (made on first use), or null
   * while the limiter refuses one (the balance is near its floor: every call is admitted first).
   */
  leaseOf(accountId: number, plan: string, now: number): IsolateLease | null {
    return this.line(accountId, plan).leaseFor(this.options, now);
  }

  /**
   * This isolate's share of the account's daily limit in `group` (made on first use), or null when
   * shares are off or one was just refused or ended (its calls are admitted at the limiter).
   */
  rateShareOf(accountId: number, plan: string, group: RateGroup, now: number): IsolateRateShare | null {
    return this.line(accountId, plan).rateShareFor(group, this.options, now);
  }

  /** The lease in use for the account, if any (tests, the bench). */
  currentLease(accountId: number): IsolateLease | null {
    return this.lines.get(accountId)?.lease ?? null;
  }

  private sendSoon(env: Env, line: AccountLine, kind: "settle" | "count", waitUntil: (p: Promise<unknown>) => void) {
    const flag = kind === "settle" ? "settleTimer" : "countTimer";
    if (line[flag]) return;
    line[flag] = true;
    const wait = kind === "settle" ? this.options.settleWaitMs : this.options.countWaitMs;
    waitUntil(
      (async () => {
        await sleep(wait);
        // Admissions are flowing: the next one carries what waits.
        for (
          let waited = wait;
          kind === "settle" && this.now() - line.lastAdmission < wait && waited < this.options.rideWaitMs;
          waited += wait
        )
          await sleep(wait);
        line[flag] = false;
        // Up to the message that carries what waits now: an item queued while this wait was armed
        // armed none of its own, and the message in flight when it was armed may have left without it.
        await this.drain(env, line, line.nextSeq);
      })().catch((err) => logError("limiter: sending what this isolate owes failed", err)),
    );
  }

  /**
   * Sends until the message numbered `target` (or a later one) is answered, or the budget is spent:
   * then the line is stranded, and the isolate's next request takes it up (resumeStranded).
   */
  private async drain(env: Env, line: AccountLine, target: number): Promise<void> {
    const started = this.now();
    this.stranded.delete(line);
    line.draining += 1;
    try {
      while (line.ackedSeq < target) {
        if (this.now() - started >= this.options.drainBudgetMs) {
          this.stranded.add(line);
          return;
        }
        await this.pump(env, line);
        if (line.ackedSeq >= target || (!line.inFlight && !line.hasWaiting())) break;
        await sleep(this.options.pollMs);
      }
    } finally {
      line.draining -= 1;
    }
  }

  /** Sends what stranded lines owe, in this request's waitUntil. */
  private resumeStranded(env: Env, waitUntil: (p: Promise<unknown>) => void): void {
    if (!this.stranded.size) return;
    const lines = [...this.stranded];
    this.stranded.clear();
    for (const line of lines)
      waitUntil(
        this.drain(env, line, line.nextSeq).catch((err) =>
          logError("limiter: sending what a line still owes failed", err),
        ),
      );
  }

  // ---- the line's one message in flight ------------------------------------------------------

  /**
   * Sends the line's next message (or the one in flight, again, when it failed or its sender has
   * not come back for resendAfterMs), and applies the answer; the follow-ups it hands out (other
   * calls' log rows) run in this request, given to `waitUntil` so that an admission does not wait
   * for them (awaited when none is given: a drain already runs after its request's answer).
   */
  private async pump(env: Env, line: AccountLine, waitUntil?: (p: Promise<unknown>) => void): Promise<void> {
    const now = this.now();
    let m = line.inFlight;
    if (m) {
      if (m.sending && now - m.sentAt < this.options.resendAfterMs) return;
      if (!m.sending && now - m.sentAt < Math.min(1_000, this.options.retryMs * 2 ** (m.failures - 1))) return;
      if (now - m.firstSent > this.options.giveUpMs) {
        this.giveUp(line, m);
        m = null;
      }
    }
    if (!m) {
      m = line.nextMessage(now);
      if (!m) return;
      line.inFlight = m;
    }
    m.sending = true;
    m.sentAt = now;
    let reply: LimiterReply;
    try {
      reply = (await this.limiter(env, line.accountId).exchange(m.body)) as LimiterReply;
    } catch (err) {
      if (line.inFlight !== m) return;
      m.sending = false;
      m.failures += 1;
      for (const a of m.admissions)
        if (!a.outcome && ++a.failures >= this.options.admissionAttempts) a.outcome = { error: err };
      logError(`limiter: a round trip failed (${m.failures} time(s)); it goes again`, err);
      return;
    }
    // Answered already (sent twice: the other send came back first), or given up.
    if (line.inFlight !== m) return;
    line.inFlight = null;
    line.ackedSeq = m.seq;
    const followUps = Promise.all(this.apply(env, line, m, reply));
    if (waitUntil) waitUntil(followUps.catch((err) => logError("limiter: a decision's follow-up failed", err)));
    else await followUps;
    if (line.idle) this.lines.delete(line.accountId);
  }

  /** A message the limiter did not answer in time: its admissions fail; what it owed waits for the next one. */
  private giveUp(line: AccountLine, m: Message) {
    line.inFlight = null;
    for (const a of m.admissions) a.outcome ??= { error: new Error("the account's limiter did not answer") };
    line.settlements.unshift(...m.settlements);
    line.charges.unshift(...m.charges);
    logError(
      "limiter: a round trip was given up; what it owed goes with the next one",
      new Error(`account ${line.accountId}`),
    );
  }

  /** Applies the limiter's answer: hands out outcomes and decisions; answers the follow-ups to await. */
  private apply(env: Env, line: AccountLine, m: Message, reply: LimiterReply): Promise<unknown>[] {
    const followUps: (Promise<unknown> | undefined)[] = [];
    const now = this.now();
    m.admissions.forEach((a, i) => {
      const result = reply.admissions[i];
      const orphan = a.outcome !== undefined || (!a.sending && now - a.seen > this.options.orphanMs);
      // Its request gave up on it (failed), or looks gone: what it was given goes back at once
      // (unless other requests share its key: a later delivery of the same bulk rows holds it; the
      // sweep releases it otherwise). A waiter only guessed gone is told so (it admits again): it
      // must never answer on what went back.
      const release = orphan && !a.shared && result.admitted && result.reservationIds.length > 0;
      a.outcome ??= release ? { released: true } : { result };
      if (release && result.admitted) {
        this.settle(
          env,
          line.accountId,
          a.req.plan,
          { reservationIds: result.reservationIds, found: false, adjust: {} },
          () => {},
        );
      }
    });
    m.settlements.forEach((s, i) => {
      const outcome = reply.settlements[i];
      if (outcome.at !== null) for (const fp of outcome.billed) this.rememberWindow(line.accountId, fp, outcome.at);
      followUps.push(s.decision.decide(outcome));
    });
    m.charges.forEach((c, i) => {
      const decision = reply.charges[i];
      c.paid?.lease.end(c.paid.ticket);
      if (decision.billed && decision.at !== null)
        this.rememberWindow(line.accountId, c.charge.fingerprint, decision.at);
      followUps.push(c.decision.decide(decision));
    });
    if (reply.lease && line.lease?.id === reply.lease.id && m.body.lease) {
      line.lease.update(reply.lease, m.firstSent, m.body.lease);
      if (reply.lease.refused.length) line.noLeaseUntil = now + this.options.leaseUseMs;
    }
    if (line.lease?.ended) line.lease = null;
    line.applyRateShares(m, reply, now);
    return followUps.filter((p): p is Promise<unknown> => p !== undefined);
  }

  // ---- balances read ------------------------------------------------------------------------

  /** Reads the account's balances with the next round trip (which carries what the line owes), for a request of instant `now`. */
  async readBalances(
    env: Env,
    accountId: number,
    plan: string,
    now: number,
    waitUntil: (p: Promise<unknown>) => void,
  ): Promise<Record<CreditBalance, BalanceView> | undefined> {
    const generation = this.generation;
    const result = await this.admit(env, accountId, { plan, group: null, cost: {}, withBalances: true }, waitUntil);
    const balances = result.admitted ? result.balances : undefined;
    if (balances) this.rememberBalances(accountId, plan, balances, generation, now);
    return balances;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const client = isolateValue<LimiterClient>("limiterClient");

/** The Worker's one client: the isolate's money state (a new isolate, or a reset, starts a new one). */
export function isolateClient(): LimiterClient {
  return client.get() ?? client.set(new LimiterClient());
}

export type { Amounts };
