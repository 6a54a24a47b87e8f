import type { Capability, CreditBalance, RateGroup } from "../capabilities/registry.js";
import type { Env } from "../env.js";
import { errorResponse } from "../http/errors.js";
import type { AdmitRequest, AdmitResult, BalanceView, Settlement } from "./account-limiter.js";
import { rateLimitHeaders } from "./headers.js";

export interface AdmissionRequest {
  accountId: number;
  plan: string;
  capability: Pick<Capability, "rateGroup" | "cost" | "exhaustedAs" | "estimatedCostHeader">;
  extraCost: Partial<Record<CreditBalance, number>>;
  now: number;
  /** Ask the limiter for the credit balances after admission in the same round trip. */
  withBalances?: boolean;
}

export type Admission =
  | {
      admitted: true;
      headers: Record<string, string>;
      /** Balances after this admission, when asked for with `withBalances`. */
      balances?: Record<CreditBalance, BalanceView>;
      /**
       * Keeps the reservation when something was found (trued up to the answer's real extra cost),
       * refunds it otherwise.
       */
      settle(outcome: { found: boolean; extraCost?: Partial<Record<CreditBalance, number>> }): Promise<void>;
    }
  | { admitted: false; headers: Record<string, string>; refusal: Response };

/** The account's limiter: one object per (owner) account. */
export function limiterFor(env: Env, accountId: number) {
  return env.ACCOUNT_LIMITER.get(env.ACCOUNT_LIMITER.idFromName(`account:${accountId}`));
}

/**
 * Settlements waiting in this isolate, per account. A call's settlement (refund, or keeping the
 * reservation) is not sent on its own at once: the next admission for the same account from this
 * isolate carries it (one round trip instead of two under load), and if none comes within
 * SETTLE_WAIT_MS the call that queued it sends everything waiting itself. Each call awaits its own
 * timer in its own request context, so the runtime keeps the isolate alive until it is sent; if the
 * isolate dies anyway, the limiter's sweep refunds the reservations (never a charge for nothing).
 */
export const SETTLE_WAIT_MS = 10;
const waitingSettlements = new Map<number, Settlement[]>();

function takeSettlements(accountId: number): Settlement[] | undefined {
  const waiting = waitingSettlements.get(accountId);
  if (waiting) waitingSettlements.delete(accountId);
  return waiting;
}

async function settleSoon(env: Env, accountId: number, settlement: Settlement): Promise<void> {
  const waiting = waitingSettlements.get(accountId) ?? [];
  waiting.push(settlement);
  waitingSettlements.set(accountId, waiting);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS));
  // Already carried by an admission, or sent by an earlier call's timer.
  if (!waitingSettlements.get(accountId)?.includes(settlement)) return;
  const batch = takeSettlements(accountId)!;
  await limiterFor(env, accountId).settleMany(batch, Date.now());
}

/**
 * Admissions coalesced per account in this isolate. A lone request goes to the limiter at once;
 * requests that arrive while a round trip for the same account is in flight wait for it to end and
 * then go together in one `admitMany` call, which the limiter decides one by one in arrival order,
 * exactly as single calls (so counting stays exact: bench:limits still admits 50 of 500).
 *
 * Why no request resolves another's admission directly: a round trip belongs to the request that
 * started it, and the runtime cancels it if that request ends first. So every batch is sent by one
 * of its own members, which awaits it; the others only get plain values and a wake-up, and the
 * first of the woken requests whose admission is still unanswered (each in its own context) sends
 * the next batch for everyone waiting by then.
 */
interface PendingAdmission {
  req: AdmitRequest;
  outcome?: { result: AdmitResult } | { error: unknown };
}
interface Lane {
  inFlight: boolean;
  waiting: PendingAdmission[];
  wakers: (() => void)[];
}
const lanes = new Map<number, Lane>();

async function admitCoalesced(env: Env, accountId: number, req: AdmitRequest): Promise<AdmitResult> {
  let lane = lanes.get(accountId);
  if (!lane) lanes.set(accountId, (lane = { inFlight: false, waiting: [], wakers: [] }));
  const mine: PendingAdmission = { req };
  lane.waiting.push(mine);
  while (!mine.outcome) {
    if (lane.inFlight) await new Promise<void>((wake) => lane.wakers.push(wake));
    else await sendBatch(env, accountId, lane);
  }
  if ("error" in mine.outcome) throw mine.outcome.error;
  return mine.outcome.result;
}

async function sendBatch(env: Env, accountId: number, lane: Lane): Promise<void> {
  lane.inFlight = true;
  const batch = lane.waiting.splice(0);
  try {
    const reqs = batch.map((p) => p.req);
    const results = (batch.length === 1 ? [await limiterFor(env, accountId).admit(reqs[0]!)] : await limiterFor(env, accountId).admitMany(reqs)) as AdmitResult[];
    batch.forEach((p, i) => (p.outcome = { result: results[i]! }));
  } catch (error) {
    for (const p of batch) p.outcome = { error };
  } finally {
    lane.inFlight = false;
    if (lane.waiting.length === 0) lanes.delete(accountId);
    for (const wake of lane.wakers.splice(0)) wake();
  }
}

const BALANCE_LABEL: Record<CreditBalance, string> = { search: "search", verification: "verification", phone: "phone" };

/** Rate limit plus credit reservation for one capability call, in one round trip to the limiter. */
export async function admitRequest(env: Env, req: AdmissionRequest): Promise<Admission> {
  const cap = req.capability;
  const cost: Partial<Record<CreditBalance, number>> = { ...req.extraCost };
  if (cap.cost) cost[cap.cost.balance] = (cost[cap.cost.balance] ?? 0) + cap.cost.amount;
  if (!cap.rateGroup && Object.keys(cost).length === 0) {
    return { admitted: true, headers: {}, settle: async () => {} };
  }
  const settlements = takeSettlements(req.accountId);
  const result = await admitCoalesced(env, req.accountId, { plan: req.plan, group: cap.rateGroup, cost, now: req.now, settlements, withBalances: req.withBalances });
  const headers = result.snapshot ? rateLimitHeaders(result.snapshot) : {};
  if (result.admitted) {
    const ids = result.reservationIds;
    return {
      admitted: true,
      headers,
      balances: result.balances,
      settle: async ({ found, extraCost }) => {
        // Options reserved up front (req.extraCost) are trued up to what the answer really used.
        const adjust: Partial<Record<CreditBalance, number>> = {};
        for (const b of new Set([...Object.keys(req.extraCost), ...Object.keys(extraCost ?? {})]) as Set<CreditBalance>) {
          const delta = (extraCost?.[b] ?? 0) - (req.extraCost[b] ?? 0);
          if (delta !== 0) adjust[b] = delta;
        }
        if (ids.length === 0 && !(found && Object.keys(adjust).length)) return;
        await settleSoon(env, req.accountId, { reservationIds: ids, found, adjust, plan: req.plan });
      },
    };
  }
  return { admitted: false, headers, refusal: refusalResponse(result, cap, cost) };
}

function refusalResponse(result: Extract<AdmitResult, { admitted: false }>, cap: AdmissionRequest["capability"], cost: Partial<Record<CreditBalance, number>>): Response {
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
