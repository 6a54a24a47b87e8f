import type { BillingTerms, CreditBalance, RateGroup } from "./groups.js";
import type { Env } from "../env.js";
import { errorResponse } from "../http/errors.js";
import { limitSnapshot, type AdmitRequest, type AdmitResult, type BalanceView, type Billing, type GroupCount, type LateChargeOutcome, type Settlement } from "./account-limiter.js";
import { chargesAnswered, countUnanswered, creditViewFresh, handOut, mayChargeLater, PendingCharge, rememberCredits } from "./late-charges.js";
import { planLimits } from "./rate-table.js";
import { rememberWindow } from "./repeat-billing.js";
import { rateLimitHeaders } from "./headers.js";
import { logError } from "../request-context.js";
import { ExpiringMap } from "../platform/expiring-map.js";

export interface AdmissionRequest {
  accountId: number;
  plan: string;
  capability: BillingTerms;
  extraCost: Partial<Record<CreditBalance, number>>;
  now: number;
  /** Ask the limiter for the credit balances after admission in the same round trip. */
  withBalances?: boolean;
  /** The request's waitUntil: work owed to the limiter after the answer (a late count) runs under it. */
  waitUntil(promise: Promise<unknown>): void;
  /**
   * Credit-billed requests under the 30-day rule, each with its own cost (then `capability.cost`
   * and `extraCost` are for nothing else): the limiter tells repeats from billed requests in this
   * same round trip and reserves only for the latter.
   */
  billing?: Billing;
  /**
   * The caller can take the billing decision after its answer (a /v1 call: its log row waits for
   * it): when the call cannot be refused, it is answered without a round trip and charged late
   * (late-charges.ts). Only for one billed request without options priced up front.
   */
  chargeLater?: boolean;
}

type Amounts = Partial<Record<CreditBalance, number>>;

/** How a call ended, for its settlement. */
export interface CallOutcome {
  found: boolean;
  /** Options used beyond those reserved up front in `extraCost` (admissions without `billing`). */
  extraCost?: Amounts;
  /** With `billing`: what the call is charged in all; the reservation is trued up to it. */
  charged?: Amounts;
  /** With `billing`: the requests billed, whose windows stay open (default: every one reserved for, when found). */
  billed?: readonly string[];
}

export type Admission =
  | {
      admitted: true;
      headers: Record<string, string>;
      /** Balances after this admission, when asked for with `withBalances`. */
      balances?: Record<CreditBalance, BalanceView>;
      /** With `billing`: the repeats, fingerprint -> when their window opened (null: its call is still running). */
      repeats: Record<string, number | null>;
      /**
       * Keeps the reservation when something was found (trued up to the answer's real cost), refunds
       * it otherwise; with `billing`, keeps the windows of the requests billed and closes the others.
       */
      settle(outcome: CallOutcome): Promise<void>;
      /**
       * Set instead of a reservation when the call is charged late: ends the call (settle is then a
       * no-op), sending what it is charged, if anything, to the limiter. The pending charge tells the
       * caller, later, whether it was billed.
       */
      chargeLater?(outcome: { found: boolean; charged?: Amounts }): PendingCharge | undefined;
    }
  | { admitted: false; headers: Record<string, string>; refusal: Response };

/**
 * Object ids of account limiters, per namespace: deriving an id from its name hashes the name, and
 * a busy account asks for its limiter on every call. Ids (unlike stubs, which belong to the request
 * that made them) may be kept across requests.
 */
const MAX_LIMITER_IDS = 10_000;
const limiterIds = new WeakMap<Env["ACCOUNT_LIMITER"], Map<number, DurableObjectId>>();

/** The account's limiter: one object per (owner) account. */
export function limiterFor(env: Env, accountId: number) {
  const ns = env.ACCOUNT_LIMITER;
  let ids = limiterIds.get(ns);
  if (!ids) limiterIds.set(ns, (ids = new Map()));
  let id = ids.get(accountId);
  if (!id) {
    if (ids.size >= MAX_LIMITER_IDS) ids.clear();
    ids.set(accountId, (id = ns.idFromName(`account:${accountId}`)));
  }
  return ns.get(id);
}

/**
 * What this isolate owes the limiter, per account: settlements of finished calls (refund, or keeping
 * the reservation) and counts of requests it admitted itself (see admitRequest). They are not sent
 * one by one: the next admission for the same account from this isolate carries them (one round
 * trip instead of two under load), and if none comes in time a call that queued an item sends
 * everything waiting itself: a settlement after SETTLE_WAIT_MS, a count after COUNT_WAIT_MS. Only
 * the first call to queue an item of each kind sets a timer (one per account and kind, not one per
 * call): it awaits it in its own request context, so the runtime keeps that request alive until
 * everything queued behind it is sent; an admission that takes the items first leaves the timer
 * nothing to do, and the next item queued sets a new one. If the isolate dies anyway, the limiter's sweep refunds the reservations (never
 * a charge for nothing) and the counts are lost; they only feed GET /v1/rate-limits' `used` of
 * groups that have no limit, so no decision ever depends on them.
 */
export const SETTLE_WAIT_MS = 10;
/** The longest a self-admitted request waits before it is counted by the limiter (within this isolate it is counted at once, see flushOwed). */
export const COUNT_WAIT_MS = 1_000;

interface Owed {
  settlements: Settlement[];
  counts: GroupCount[];
  charges: PendingCharge[];
  /** A call of this isolate waits to send this batch: after SETTLE_WAIT_MS / COUNT_WAIT_MS. */
  settleTimer?: true;
  countTimer?: true;
}
const owed = new Map<number, Owed>();

function takeOwed(accountId: number): Owed {
  const o = owed.get(accountId);
  owed.delete(accountId);
  return o ?? { settlements: [], counts: [], charges: [] };
}

function owedTo(accountId: number): Owed {
  let o = owed.get(accountId);
  if (!o) owed.set(accountId, (o = { settlements: [], counts: [], charges: [] }));
  return o;
}

async function sendOwed(env: Env, accountId: number): Promise<void> {
  const { settlements, counts, charges } = takeOwed(accountId);
  if (!settlements.length && !counts.length && !charges.length) return;
  let outcome: LateChargeOutcome | undefined;
  try {
    outcome = await limiterFor(env, accountId).settleMany(settlements, Date.now(), counts, charges.map((p) => p.charge));
  } catch (err) {
    // Charges are the only thing here nobody would ever send again: they go once more, after SETTLE_WAIT_MS.
    if (requeueCharges(accountId, charges)) {
      logError("limiter: sending late charges failed; sending them again", err);
      return sendAfterSettleWait(env, accountId, owedTo(accountId));
    }
    await answerCharges(accountId, charges, undefined);
    throw err;
  }
  await answerCharges(accountId, charges, outcome);
}

/** Puts charges sent once back at the head of the queue; false when they had been sent before. */
function requeueCharges(accountId: number, charges: PendingCharge[]): boolean {
  if (!charges.length || charges.some((p) => p.resent)) return false;
  for (const p of charges) p.resent = true;
  owedTo(accountId).charges.unshift(...charges);
  return true;
}

/**
 * An admission that carries this isolate's waiting late charges to the limiter and hands them their
 * decisions. If it fails, they go once more after SETTLE_WAIT_MS, or are answered as not billed.
 */
async function admitCarrying(env: Env, req: AdmissionRequest, charges: PendingCharge[], admit: AdmitRequest): Promise<AdmitResult> {
  let result: AdmitResult;
  try {
    result = await admitCoalesced(env, req.accountId, { ...admit, charges: charges.map((p) => p.charge) });
  } catch (err) {
    if (requeueCharges(req.accountId, charges)) req.waitUntil(sendAfterSettleWait(env, req.accountId, owedTo(req.accountId)).catch((e) => logError("limiter: late charges failed", e)));
    else req.waitUntil(answerCharges(req.accountId, charges, undefined));
    throw err;
  }
  if (charges.length) req.waitUntil(answerCharges(req.accountId, charges, result.lateCharges).catch((e) => logError("late charge follow-up failed", e)));
  return result;
}

/** Hands late charges the limiter's decisions (none: not billed), and runs the follow-ups that waited. */
async function answerCharges(accountId: number, charges: PendingCharge[], outcome: LateChargeOutcome | undefined): Promise<void> {
  if (!charges.length) return;
  chargesAnswered(accountId, charges.map((p) => p.charge));
  if (outcome) {
    rememberCredits(accountId, charges[0]!.charge.plan, outcome.balances, Date.now());
    // A billed request's window is open from its admission on: its repeats in this isolate need no limiter.
    charges.forEach((p, i) => outcome.billed[i] && rememberWindow(accountId, p.charge.fingerprint, p.charge.at));
  } else logError("limiter: late charges could not be sent; answered as not billed", new Error(`${charges.length} charge(s) for account ${accountId}`));
  await Promise.all(handOut(charges, outcome));
}

async function settleSoon(env: Env, accountId: number, settlement: Settlement): Promise<void> {
  const o = owedTo(accountId);
  o.settlements.push(settlement);
  forgetBalances(accountId);
  await sendAfterSettleWait(env, accountId, o);
}

/** Queues a late charge; it goes with the account's next round trip from this isolate, or within SETTLE_WAIT_MS. */
async function chargeSoon(env: Env, accountId: number, charge: PendingCharge): Promise<void> {
  const o = owedTo(accountId);
  o.charges.push(charge);
  forgetBalances(accountId);
  await sendAfterSettleWait(env, accountId, o);
}

async function sendAfterSettleWait(env: Env, accountId: number, o: Owed): Promise<void> {
  if (o.settleTimer) return;
  o.settleTimer = true;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS));
  // Unless an admission (or another call's timer) took the batch meanwhile, send it.
  if (owed.get(accountId) === o) await sendOwed(env, accountId);
}

async function countSoon(env: Env, accountId: number, count: GroupCount): Promise<void> {
  const o = owedTo(accountId);
  o.counts.push(count);
  if (o.countTimer) return;
  o.countTimer = true;
  await new Promise((resolve) => setTimeout(resolve, COUNT_WAIT_MS));
  if (owed.get(accountId) === o) await sendOwed(env, accountId);
}

/**
 * Sends whatever this isolate still owes the account's limiter, so a read that follows (GET
 * /v1/rate-limits) sees every call this isolate has made.
 */
export async function flushOwed(env: Env, accountId: number): Promise<void> {
  await sendOwed(env, accountId);
}

/** True when the plan has no limit in this group whatever the account's state (pro-plus, scale). */
function unlimitedGroup(plan: string, group: RateGroup): boolean {
  const l = planLimits(plan, group);
  return !l.second && !l.minute && !l.daily;
}

/**
 * Admissions coalesced per account in this isolate. A lone request goes to the limiter at once;
 * requests that arrive while a round trip for the same account is in flight wait for it to end and
 * then go together in one `admitMany` call, which the limiter decides one by one in arrival order,
 * exactly as single calls (counting stays exact), in one storage transaction.
 *
 * No request awaits a promise another request created: a round trip belongs to the request that
 * started it (the runtime cancels it if that request ends first), a request awaiting only another
 * request's promise is ended as hung, and settling one request's promise from another's context is
 * refused. So every batch is sent by one of its own members, which awaits it; the others get plain
 * values, looking at their lane every POLL_MS on a timer of their own, and the first of them that
 * finds its admission unanswered and no round trip in flight sends the next batch, for everyone
 * waiting by then. A lone request (nothing in flight) is sent at once: no wait at one connection.
 */
interface PendingAdmission {
  req: AdmitRequest;
  outcome?: { result: AdmitResult } | { error: unknown };
  /** Sent once in a batch that failed for another request (e.g. its sender was cancelled). */
  resent?: true;
}
interface Lane {
  inFlight: boolean;
  waiting: PendingAdmission[];
}
const lanes = new Map<number, Lane>();
/** How often a waiting admission looks at its lane again. */
export const POLL_MS = 3;

async function admitCoalesced(env: Env, accountId: number, req: AdmitRequest): Promise<AdmitResult> {
  let lane = lanes.get(accountId);
  if (!lane) lanes.set(accountId, (lane = { inFlight: false, waiting: [] }));
  const mine: PendingAdmission = { req };
  lane.waiting.push(mine);
  while (!mine.outcome) {
    if (lane.inFlight) await tick();
    else await sendBatch(env, accountId, lane, mine);
  }
  if ("error" in mine.outcome) throw mine.outcome.error;
  return mine.outcome.result;
}

/**
 * Sleeps POLL_MS on a timer of this request's own. Waiters are not woken by the request whose round
 * trip they wait for: the runtime refuses to settle one request's promise from another's context.
 */
function tick(): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, POLL_MS));
}

async function sendBatch(env: Env, accountId: number, lane: Lane, sender: PendingAdmission): Promise<void> {
  lane.inFlight = true;
  const batch = lane.waiting.splice(0);
  try {
    const reqs = batch.map((p) => p.req);
    const limiter = limiterFor(env, accountId);
    const results = (batch.length === 1 ? [await limiter.admit(reqs[0]!)] : await limiter.admitMany(reqs)) as AdmitResult[];
    batch.forEach((p, i) => (p.outcome = { result: results[i]! }));
  } catch (error) {
    // The round trip belonged to the sender: if it failed because that request was cancelled, the
    // others are not at fault, so each goes again once, in the next batch, before taking the error.
    const again: PendingAdmission[] = [];
    for (const p of batch) {
      if (p === sender || p.resent) p.outcome = { error };
      else {
        p.resent = true;
        again.push(p);
      }
    }
    lane.waiting.unshift(...again);
  } finally {
    lane.inFlight = false;
    if (lane.waiting.length === 0 && lanes.get(accountId) === lane) lanes.delete(accountId);
  }
}

const BALANCE_LABEL: Record<CreditBalance, string> = { search: "search", verification: "verification", phone: "phone" };

/** Rate limit plus credit reservation for one capability call, in one round trip to the limiter. */
export async function admitRequest(env: Env, req: AdmissionRequest): Promise<Admission> {
  const cap = req.capability;
  const cost: Amounts = { ...req.extraCost };
  if (cap.cost) cost[cap.cost.balance] = (cost[cap.cost.balance] ?? 0) + cap.cost.amount;
  const billing = req.billing?.requests.length ? req.billing : undefined;
  if (!billing && !cap.rateGroup && Object.keys(cost).length === 0) {
    return { admitted: true, headers: {}, repeats: {}, settle: async () => {} };
  }
  if (!billing && cap.rateGroup && Object.keys(cost).length === 0 && unlimitedGroup(req.plan, cap.rateGroup)) return admitUnlimited(env, req, cap.rateGroup);
  // A call that cannot be refused (no limit in its group, credits far above its cost) is decided after its answer.
  const late = req.chargeLater && billing?.requests.length === 1 && Object.keys(cost).length === 0 && (!cap.rateGroup || unlimitedGroup(req.plan, cap.rateGroup));
  if (late && mayChargeLater(req.accountId, req.plan, billing.requests[0]!.cost, req.now)) return admitChargingLater(env, req, billing);
  const { settlements, counts, charges } = takeOwed(req.accountId);
  // A reservation changes the balances this isolate may remember for /v1/me.
  if (billing || Object.keys(cost).length) forgetBalances(req.accountId);
  const generation = balancesGeneration;
  // The balances after this call tell whether the next ones may be charged late.
  const withBalances = req.withBalances || (late && !creditViewFresh(req.accountId, req.plan, req.now));
  const result = await admitCarrying(env, req, charges, { plan: req.plan, group: cap.rateGroup, cost, now: req.now, settlements, counts, withBalances, billing });
  if (result.admitted && result.balances) {
    rememberBalances(req.accountId, req.plan, result.balances, req.now, generation);
    if (late) rememberCredits(req.accountId, req.plan, result.balances, req.now);
  }
  const headers = result.snapshot ? rateLimitHeaders(result.snapshot) : {};
  if (result.admitted) {
    const ids = result.reservationIds;
    const reserved = result.reserved ?? cost;
    return {
      admitted: true,
      headers,
      balances: result.balances,
      repeats: result.repeats ?? {},
      settle: async ({ found, extraCost, charged, billed }) => {
        // The reservation is trued up to what the answer really used: options reserved up front
        // (req.extraCost) against those used, or what was reserved against what is charged.
        const [used, held] = charged ? [charged, reserved] : [extraCost ?? {}, req.extraCost];
        const adjust: Amounts = {};
        for (const b of new Set([...Object.keys(held), ...Object.keys(used)]) as Set<CreditBalance>) {
          const delta = (used[b] ?? 0) - (held[b] ?? 0);
          if (delta !== 0) adjust[b] = delta;
        }
        if (ids.length === 0 && !(found && Object.keys(adjust).length)) return;
        await settleSoon(env, req.accountId, { reservationIds: ids, found, adjust, plan: req.plan, billed });
      },
    };
  }
  // With billing, what the limiter found needed (repeats left out) is the request's cost.
  return { admitted: false, headers, refusal: refusalResponse(result, cap, billing ? {} : cost) };
}

/**
 * Admits a call in a group where the plan sets no limit: the limiter's headers for it (no limit,
 * nothing left to count down), and its count owed to the limiter (countSoon).
 */
function admitWithoutLimit(env: Env, req: AdmissionRequest, group: RateGroup): Record<string, string> {
  req.waitUntil(countSoon(env, req.accountId, { group, at: req.now }).catch((err) => logError("limiter count failed", err)));
  return rateLimitHeaders(limitSnapshot(planLimits(req.plan, group), { second: 0, minute: 0, daily: 0 }, req.now));
}

/**
 * A free call in a group where the plan sets no limit: there is nothing to decide, so the isolate
 * admits it without a round trip (headers are the same as the limiter's: no limit, nothing left to
 * count down) and owes the limiter its count (countSoon). Only when the caller wants the credit
 * balances (/v1/me) is the limiter asked: a read, with this isolate's waiting settlements.
 */
async function admitUnlimited(env: Env, req: AdmissionRequest, group: RateGroup): Promise<Admission> {
  const headers = admitWithoutLimit(env, req, group);
  if (!req.withBalances) return { admitted: true, headers, repeats: {}, settle: async () => {} };
  const known = knownBalances(req.accountId, req.plan, req.now);
  if (known) return { admitted: true, headers, balances: known, repeats: {}, settle: async () => {} };
  // Settlements and late charges change the balances, so they ride along; counts do not, and stay owed (no write).
  const settlements = owed.get(req.accountId)?.settlements.splice(0) ?? [];
  const charges = owed.get(req.accountId)?.charges.splice(0) ?? [];
  const generation = balancesGeneration;
  const result = await admitCarrying(env, req, charges, { plan: req.plan, group: null, cost: {}, now: req.now, settlements, withBalances: true });
  const balances = result.admitted ? result.balances : undefined;
  if (balances) rememberBalances(req.accountId, req.plan, balances, req.now, generation);
  return { admitted: true, headers, balances, repeats: {}, settle: async () => {} };
}

/**
 * A billed call answered before the limiter decides it (late-charges.ts): headers as admitUnlimited
 * gives them, the count owed like its counts, and, once the answer is known, the charge owed like
 * a settlement (it rides with the next round trip, or goes within SETTLE_WAIT_MS).
 */
function admitChargingLater(env: Env, req: AdmissionRequest, billing: Billing): Admission {
  const group = req.capability.rateGroup;
  const [{ fingerprint, cost: counted }] = billing.requests as [Billing["requests"][number]];
  const headers = group ? admitWithoutLimit(env, req, group) : {};
  return {
    admitted: true,
    headers,
    repeats: {},
    settle: async () => {},
    chargeLater: ({ found, charged }) => {
      countUnanswered(req.accountId, counted, -1);
      if (!found) return undefined;
      const cost = charged ?? counted;
      countUnanswered(req.accountId, cost, 1);
      const pending = new PendingCharge({ plan: req.plan, accountId: req.accountId, capability: billing.capability, source: billing.source, fingerprint, cost, at: req.now });
      req.waitUntil(chargeSoon(env, req.accountId, pending).catch((err) => logError("limiter: late charge failed", err)));
      return pending;
    },
  };
}

/**
 * Balances this isolate read from the limiter, per account, so /v1/me on a plan without limits (no
 * decision to ask for) needs no round trip. Bound: at most BALANCES_TTL_MS old; any reservation or
 * settlement this isolate makes for the account forgets them at once, so only charges made through
 * other isolates can be missing, for at most that long.
 */
export const BALANCES_TTL_MS = 1_000;
const MAX_BALANCE_ENTRIES = 5_000;
const balancesSeen = new ExpiringMap<number, { plan: string; balances: Record<CreditBalance, BalanceView> }>(MAX_BALANCE_ENTRIES);
/** Bumped by every forgetBalances: balances read before that may miss the change, and are not kept. */
let balancesGeneration = 0;

function knownBalances(accountId: number, plan: string, now: number): Record<CreditBalance, BalanceView> | undefined {
  const seen = balancesSeen.get(accountId, now, BALANCES_TTL_MS);
  return seen?.plan === plan ? seen.balances : undefined;
}

function rememberBalances(accountId: number, plan: string, balances: Record<CreditBalance, BalanceView>, now: number, readInGeneration: number): void {
  if (readInGeneration === balancesGeneration) balancesSeen.set(accountId, { plan, balances }, now);
}

/** The account's credits changed (or may have): its next /v1/me asks the limiter. */
export function forgetBalances(accountId: number): void {
  balancesGeneration += 1;
  balancesSeen.delete(accountId);
}

function refusalResponse(result: Extract<AdmitResult, { admitted: false }>, cap: AdmissionRequest["capability"], cost: Amounts): Response {
  if (result.reason === "credits") {
    const label = BALANCE_LABEL[result.balance];
    if (cap.exhaustedAs === "rate_limit") {
      // The spec keeps the older answer for these endpoints: 429 without Retry-After.
      return errorResponse(429, "rate_limit", `Your ${label} credits are used up for this period. Buy credits or upgrade your plan; retrying will not help until then.`);
    }
    const headers: Record<string, string> = {};
    if (cap.estimatedCostHeader) headers[cap.estimatedCostHeader] = String(cost[result.balance] ?? result.needed);
    return errorResponse(
      402,
      "quota_exceeded",
      `Your ${label} balance (${result.available} credits) is lower than this request's cost (${result.needed}). Do not retry: buy credits or upgrade your plan first.`,
      headers,
    );
  }
  const what = { rps: "requests per second (rps)", rpm: "requests per minute (rpm)", daily: "requests per day (daily)" }[result.reason];
  const limit = { rps: result.snapshot.limits.second, rpm: result.snapshot.limits.minute, daily: result.snapshot.limits.daily }[result.reason];
  const advice =
    result.reason === "daily"
      ? "The daily counter resets at 00:00 UTC."
      : `Wait ${result.retryAfter} second${result.retryAfter === 1 ? "" : "s"} without requests, then retry with exponential backoff.`;
  return errorResponse(429, "rate_limit", `Rate limit reached: ${limit} ${what} for this endpoint group. ${advice}`, {
    "Retry-After": String(result.retryAfter),
  });
}

/** Admission for routes that are not capabilities but belong to a table row (e.g. /v1/me). */
export function groupOnly(group: RateGroup): AdmissionRequest["capability"] {
  return { rateGroup: group, cost: null };
}
