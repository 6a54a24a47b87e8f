import type { Env } from "../env.js";
import { errorResponse } from "../http/errors.js";
import { type BalanceView, limitSnapshot } from "./account-limiter.js";
import { type BillingDecision, BillingOnReport, type PendingDecision } from "./billing-decision.js";
import type { BillingTerms, CreditBalance, RateGroup } from "./groups.js";
import { rateLimitHeaders } from "./headers.js";
import type { IsolateRateShare } from "./isolate-rate-share.js";
import { isolateClient, type LeasePaid, type LimiterClient } from "./limiter-client.js";
import type { AdmitResult, Billing, SettlementOutcome } from "./limiter-messages.js";
import { planLimits } from "./rate-table.js";

export { BALANCES_TTL_MS } from "./limiter-client.js";

export interface AdmissionRequest {
  accountId: number;
  plan: string;
  capability: BillingTerms;
  extraCost: Partial<Record<CreditBalance, number>>;
  now: number;
  /** Ask the limiter for the credit balances after admission in the same round trip. */
  withBalances?: boolean;
  /** The request's waitUntil: work owed to the limiter after the answer (a settlement, a late charge, a count) runs under it. */
  waitUntil(promise: Promise<unknown>): void;
  /**
   * Credit-billed requests under the 30-day rule, each with its own cost (then `capability.cost`
   * and `extraCost` are for nothing else): the limiter tells repeats from billed requests in this
   * same round trip and reserves only for the latter.
   */
  billing?: Billing;
  /**
   * The caller takes the billing decision after its answer (a /v1 call: its log row waits for it):
   * a call that cannot be refused is then answered from this isolate's lease without a round trip,
   * and charged late. Only for one billed request without options priced up front.
   */
  chargeLater?: boolean;
  /** Idempotency key of the admission (a bulk chunk sent again asks under its first delivery's key). */
  key?: string;
  /** Reserve the billed requests in order while the balance covers them; answer the rest as refused (bulk). */
  partial?: boolean;
  /** This isolate's money state (tests play several isolates with several). */
  client?: LimiterClient;
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
      /** With `partial`: the requests not reserved for want of credits, and the refusal their calls would get. */
      refused?: { fingerprints: string[]; response: Response };
      /** The reservations made (a long bulk chunk keeps them alive). */
      reservationIds: string[];
      /**
       * Ends the call: keeps the reservation when something was found (trued up to the answer's
       * real cost), refunds it otherwise; with `billing`, keeps the windows of the requests billed
       * and closes the others. Answers the limiter's decision to come (none when nothing was reserved).
       */
      settle(outcome: CallOutcome): PendingDecision<SettlementOutcome> | undefined;
      /**
       * Set instead of a reservation when the call was paid from the isolate's lease: ends the call
       * (settle is then a no-op). When it found something, its charge goes to the limiter once a
       * surface takes its report (the decision tells it, later, whether it was billed).
       */
      chargeLater?(outcome: { found: boolean; charged?: Amounts }): BillingDecision | undefined;
    }
  | { admitted: false; headers: Record<string, string>; refusal: Response };

/** The account's limiter: one object per (owner) account. */
export function limiterFor(env: Env, accountId: number, client: LimiterClient = isolateClient()) {
  return client.limiter(env, accountId);
}

/**
 * The account's plan changed (D1 already holds it): its limiter decides under it from now on,
 * whatever plan a stale auth cache still sends, and this isolate's balances are read again.
 */
export async function planChanged(env: Env, accountId: number, plan: string): Promise<void> {
  await limiterFor(env, accountId).setPlan(plan);
  forgetBalances(accountId);
}

/**
 * Sends whatever this isolate still owes the account's limiter, so a read that follows (GET
 * /v1/rate-limits, /v1/usage) sees every call this isolate has made.
 */
export async function flushOwed(env: Env, accountId: number, client: LimiterClient = isolateClient()): Promise<void> {
  await client.flush(env, accountId);
}

/** The account's credits changed (or may have): its next /v1/me asks the limiter. */
export function forgetBalances(accountId: number, client: LimiterClient = isolateClient()): void {
  client.forgetBalances(accountId);
}

/** True when the plan has no limit in this group whatever the account's state (pro-plus, scale). */
function unlimitedGroup(plan: string, group: RateGroup): boolean {
  const l = planLimits(plan, group);
  return !l.second && !l.minute && !l.daily;
}

/** True when the plan's only limit in this group is a daily one (enterprise): isolates may hold shares of it. */
function dailyLimitOnly(plan: string, group: RateGroup): boolean {
  const l = planLimits(plan, group);
  return !l.second && !l.minute && l.daily > 0;
}

const BALANCE_LABEL: Record<CreditBalance, string> = { search: "search", verification: "verification", phone: "phone" };
const NOTHING_RESERVED = { repeats: {}, reservationIds: [], settle: () => undefined };

/** Rate limit plus credit reservation for one capability call, in one round trip to the limiter. */
export async function admitRequest(env: Env, req: AdmissionRequest): Promise<Admission> {
  const client = req.client ?? isolateClient();
  const cap = req.capability;
  const cost: Amounts = { ...req.extraCost };
  if (cap.cost) cost[cap.cost.balance] = (cost[cap.cost.balance] ?? 0) + cap.cost.amount;
  const billing = req.billing?.requests.length ? req.billing : undefined;
  if (!billing && !cap.rateGroup && Object.keys(cost).length === 0) {
    return { admitted: true, headers: {}, ...NOTHING_RESERVED };
  }
  if (!billing && cap.rateGroup && Object.keys(cost).length === 0 && unlimitedGroup(req.plan, cap.rateGroup))
    return admitUnlimited(env, client, req, cap.rateGroup);
  // A free /v1 call in a group with a daily limit alone (a repeat this isolate knows, a free
  // capability) spends a unit of this isolate's share of the day when it has one: nothing to pay.
  if (
    req.chargeLater &&
    !billing &&
    cap.rateGroup &&
    Object.keys(cost).length === 0 &&
    !req.withBalances &&
    dailyLimitOnly(req.plan, cap.rateGroup)
  ) {
    const share = client.rateShareOf(req.accountId, req.plan, cap.rateGroup, client.now());
    if (share?.take(client.now()))
      return { admitted: true, headers: shareHeaders(req, cap.rateGroup, share), ...NOTHING_RESERVED };
  }
  // A call that cannot be refused (no limit in its group), or whose group has a daily limit alone
  // and this isolate's share of it a unit left, is paid from this isolate's lease when it holds the credits.
  const group = cap.rateGroup;
  const dayOnly = group !== null && dailyLimitOnly(req.plan, group);
  const late =
    req.chargeLater &&
    billing?.requests.length === 1 &&
    Object.keys(cost).length === 0 &&
    (!group || dayOnly || unlimitedGroup(req.plan, group));
  if (late) {
    const now = client.now();
    const lease = client.leaseOf(req.accountId, req.plan, now);
    // No share is asked for while the lease is refused: it could pay nothing.
    const share = dayOnly && group && lease ? client.rateShareOf(req.accountId, req.plan, group, now) : null;
    // The lease is asked first (so that its next top-up asks for this call's balances), then the share.
    const ticket = lease?.take(billing.requests[0].cost, now) ?? null;
    if (lease && ticket !== null) {
      if (!dayOnly || share?.take(now)) return admitFromLease(env, client, req, billing, { lease, ticket }, share);
      lease.end(ticket);
    }
  }
  // A reservation changes the balances this isolate may remember for /v1/me.
  if (billing || Object.keys(cost).length) client.forgetBalances(req.accountId);
  const generation = client.generation;
  const key = req.key ?? crypto.randomUUID();
  const admit = {
    key,
    plan: req.plan,
    group: cap.rateGroup,
    cost,
    withBalances: req.withBalances,
    billing,
    partial: req.partial,
  };
  const result = await client.admit(env, req.accountId, admit, req.waitUntil, req.key !== undefined);
  if (result.admitted && result.balances)
    client.rememberBalances(req.accountId, req.plan, result.balances, generation, req.now);
  const headers = result.snapshot ? rateLimitHeaders(result.snapshot) : {};
  if (!result.admitted) return { admitted: false, headers, refusal: refusalResponse(result, cap, billing ? {} : cost) };
  const ids = result.reservationIds;
  const reserved = result.reserved ?? cost;
  const repeats = result.repeats ?? {};
  const fresh = billing
    ? billing.requests.map((r) => r.fingerprint).filter((fp) => !(fp in repeats) && !result.refused?.includes(fp))
    : [];
  const refused =
    result.refused?.length && result.shortOf
      ? {
          fingerprints: result.refused,
          response: refusalResponse({ admitted: false, reason: "credits", snapshot: null, ...result.shortOf }, cap, {}),
        }
      : undefined;
  return {
    admitted: true,
    headers,
    balances: result.balances,
    repeats,
    refused,
    reservationIds: ids,
    settle: ({ found, extraCost, charged, billed }) => {
      // The reservation is trued up to what the answer really used: options reserved up front
      // (req.extraCost) against those used, or what was reserved against what is charged.
      const [used, held] = charged ? [charged, reserved] : [extraCost ?? {}, req.extraCost];
      const adjust: Amounts = {};
      for (const b of new Set([...Object.keys(held), ...Object.keys(used)]) as Set<CreditBalance>) {
        const delta = (used[b] ?? 0) - (held[b] ?? 0);
        if (delta !== 0) adjust[b] = delta;
      }
      if (ids.length === 0) return undefined;
      const settlement = { reservationIds: ids, found, adjust, billed: found ? [...(billed ?? fresh)] : [] };
      return client.settle(env, req.accountId, req.plan, settlement, req.waitUntil);
    },
  };
}

/**
 * Admits a call in a group where the plan sets no limit: the limiter's headers for it (no limit,
 * nothing left to count down), and its count owed to the limiter.
 */
function admitWithoutLimit(
  env: Env,
  client: LimiterClient,
  req: AdmissionRequest,
  group: RateGroup,
): Record<string, string> {
  client.count(env, req.accountId, req.plan, { group, at: req.now }, req.waitUntil);
  return rateLimitHeaders(limitSnapshot(planLimits(req.plan, group), { second: 0, minute: 0, daily: 0 }, req.now));
}

/**
 * A free call in a group where the plan sets no limit: there is nothing to decide, so the isolate
 * admits it without a round trip and owes the limiter its count. Only when the caller wants the
 * credit balances (/v1/me) is the limiter asked (a read, carrying what the line owes), unless this
 * isolate read them less than BALANCES_TTL_MS ago.
 */
async function admitUnlimited(
  env: Env,
  client: LimiterClient,
  req: AdmissionRequest,
  group: RateGroup,
): Promise<Admission> {
  const headers = admitWithoutLimit(env, client, req, group);
  if (!req.withBalances) return { admitted: true, headers, ...NOTHING_RESERVED };
  const balances =
    client.knownBalances(req.accountId, req.plan, req.now) ??
    (await client.readBalances(env, req.accountId, req.plan, req.now, req.waitUntil));
  return { admitted: true, headers, balances, ...NOTHING_RESERVED };
}

/**
 * A billed call paid from this isolate's lease (limiter-client.ts): headers as admitUnlimited gives
 * them and the count owed (none when a unit of this isolate's rate share admitted it: the share was
 * counted when granted), and once the answer is known, its charge owed like a settlement (it rides
 * with the next round trip, or goes within settleWaitMs).
 */
function admitFromLease(
  env: Env,
  client: LimiterClient,
  req: AdmissionRequest,
  billing: Billing,
  paid: LeasePaid,
  share: IsolateRateShare | null,
): Admission {
  const group = req.capability.rateGroup;
  const [{ fingerprint, cost }] = billing.requests as [Billing["requests"][number]];
  const headers =
    group && share ? shareHeaders(req, group, share) : group ? admitWithoutLimit(env, client, req, group) : {};
  return {
    admitted: true,
    headers,
    ...NOTHING_RESERVED,
    chargeLater: ({ found }) => {
      if (!found) {
        paid.lease.end(paid.ticket);
        return undefined;
      }
      // The lease paid the declared cost; an answer that uses more is charged that (late charges carry no options).
      const charge = {
        key: crypto.randomUUID(),
        lease: paid.lease.id,
        accountId: req.accountId,
        capability: billing.capability,
        source: billing.source,
        fingerprint,
        cost,
      };
      // Sent when the call's report asks for the decision (BillingOnReport).
      return new BillingOnReport(
        // A call whose ticket was forgotten (it took longer than LEASE_CALL_MS) is charged from the balance.
        () =>
          paid.lease.send(paid.ticket)
            ? client.charge(env, req.accountId, req.plan, charge, paid, req.waitUntil)
            : client.charge(env, req.accountId, req.plan, { ...charge, lease: null }, null, req.waitUntil),
        (d) => d.billed,
      );
    },
  };
}

/** The headers of a call admitted by its isolate's share: the day's limit and what this isolate may count on of it. */
function shareHeaders(req: AdmissionRequest, group: RateGroup, share: IsolateRateShare): Record<string, string> {
  const limits = planLimits(req.plan, group);
  const used = { second: 0, minute: 0, daily: Math.max(0, limits.daily - share.left()) };
  return rateLimitHeaders(limitSnapshot(limits, used, req.now));
}

function refusalResponse(
  result: Extract<AdmitResult, { admitted: false }>,
  cap: AdmissionRequest["capability"],
  cost: Amounts,
): Response {
  if (result.reason === "credits") {
    const label = BALANCE_LABEL[result.balance];
    if (cap.exhaustedAs === "rate_limit") {
      // The spec keeps the older answer for these endpoints: 429 without Retry-After.
      return errorResponse(
        429,
        "rate_limit",
        `Your ${label} credits are used up for this period. Buy credits or upgrade your plan; retrying will not help until then.`,
      );
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
  const what = {
    rps: "requests per second (rps)",
    rpm: "requests per minute (rpm)",
    daily: "requests per day (daily)",
  }[result.reason];
  const limit = {
    rps: result.snapshot.limits.second,
    rpm: result.snapshot.limits.minute,
    daily: result.snapshot.limits.daily,
  }[result.reason];
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
