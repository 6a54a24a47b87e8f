import { inIndexFlow } from "../../db/index-sessions.js";
import { errorResponse, toErrorResponse } from "../../http/errors.js";
import { withHeaders } from "../../http/headers.js";
import { admitRequest } from "../../limits/admission.js";
import { type BillingDecision, BillingOnReport, NOT_BILLED, PendingDecision } from "../../limits/billing-decision.js";
import type { CreditBalance } from "../../limits/groups.js";
import { isolateClient } from "../../limits/limiter-client.js";
import type { SettlementOutcome } from "../../limits/limiter-messages.js";
import { requestFingerprint } from "../../limits/repeat-billing.js";
import type { Execution, Invocation } from "./invocation.js";
import type { AnyCapability, CapabilityResult } from "./registry.js";
import { logSurfaceCall } from "./surface-log.js";

export type { Execution, Invocation } from "./invocation.js";

/**
 * Runs one capability call the same way for every surface: admit (rate limit + credit reservation,
 * one round trip), run the handler, then settle (charge if something was found, refund otherwise).
 * The answer carries the rate-limit headers the admission produced, errors included.
 */
export async function executeCapability(
  cap: AnyCapability,
  params: Record<string, unknown>,
  inv: Invocation,
): Promise<Execution> {
  const now = inv.now ?? Date.now;
  const client = inv.client ?? isolateClient();
  const started = now();
  // On the agent surface the payment is the charge: the shared agents account spends no credits,
  // but its calls still count against the shared rate limits.
  const paidPerRequest = inv.surface === "agent";
  const creditBilled = !paidPerRequest && cap.cost !== null;
  // docs/wire-contract.md §3.2: the same request within 30 days of a billed one is answered free. The limiter
  // decides it in the admission's round trip (repeat, or billed with its credits reserved), so two
  // identical requests at the same instant are billed once.
  const fingerprint = creditBilled ? await requestFingerprint(cap.name, params) : null;
  // Bulk rows are paced by the job's queue; dashboard searches have counters of their own.
  const rateGroup = inv.surface === "bulk" ? null : inv.fromDashboard && cap.rateGroup ? "searches" : cap.rateGroup;
  const source =
    inv.surface === "bulk" ? ("bulk" as const) : inv.fromDashboard ? ("website" as const) : ("api" as const);
  // A window this isolate already knows is open (exact: see LimiterClient.knownRepeat) needs no
  // decision: the admission only counts the rate limit (on plans without limits, without a round trip).
  const knownFree = fingerprint !== null && client.knownRepeat(inv.accountId, fingerprint, started);
  const billing =
    fingerprint !== null && !knownFree
      ? {
          accountId: inv.accountId,
          capability: cap.name,
          source,
          requests: [{ fingerprint, cost: costOf(cap, cap.extraCostFor?.(params)) }],
        }
      : undefined;
  const admission = await admitRequest(inv.env, {
    accountId: inv.accountId,
    plan: inv.plan,
    // Bulk rows are paced by the job's queue, not by the per-request table; their credits are the same.
    // A credit-billed call's cost travels with its fingerprint; the agent surface's payment is its charge.
    capability: { ...cap, rateGroup, cost: null },
    extraCost: {},
    now: started,
    waitUntil: inv.waitUntil,
    billing,
    // Options priced up front and quota headers need the limiter before the answer.
    chargeLater: inv.chargeLater && !cap.extraCostFor && !cap.quotaHeaders,
    client,
  });
  const finish = (execution: Execution): Execution => {
    if (inv.surface !== "v1") logSurfaceCall(inv, cap, params, execution, now() - started);
    return execution;
  };
  if (!admission.admitted)
    return finish({ response: withHeaders(admission.refusal, admission.headers), billing: NOT_BILLED });
  const openedAt = fingerprint !== null ? admission.repeats[fingerprint] : undefined;
  // A window kept by an earlier call is remembered; one whose call is still running is not (it may close).
  if (fingerprint !== null && typeof openedAt === "number") client.rememberWindow(inv.accountId, fingerprint, openedAt);
  const repeat = knownFree || openedAt !== undefined;

  let result: CapabilityResult;
  try {
    // One flow of index reads and writes: each sees the call's own writes (src/db/index-sessions.ts).
    result = await inIndexFlow(() =>
      cap.handler(params, {
        env: inv.env,
        now,
        waitUntil: inv.waitUntil,
        surface: inv.surface,
        accountId: inv.accountId,
      }),
    );
  } catch (err) {
    if (admission.chargeLater) admission.chargeLater({ found: false });
    else if (!repeat) admission.settle({ found: false });
    const response = toErrorResponse(err);
    return finish({ response: withHeaders(response, admission.headers), billing: NOT_BILLED });
  }
  // The limiter decides after the answer whether a call that found something new was billed: from
  // the isolate's lease (a late charge), or by keeping its reservation (the settlement). Credits were
  // set aside before the answer either way, so the next request already sees the lower balance.
  // What it found is charged once the surface takes the call's report (BillingOnReport): a request
  // that ends before reporting its answer never gave it, and is charged nothing.
  if (inv.answerDropped?.()) {
    if (admission.chargeLater) admission.chargeLater({ found: false });
    else if (!repeat) admission.settle({ found: false });
    return finish({
      response: withHeaders(
        errorResponse(504, "gateway_timeout", "The request ran past its deadline; nothing was charged."),
        admission.headers,
      ),
      billing: NOT_BILLED,
    });
  }
  const charged = result.found && creditBilled ? costOf(cap, result.extraCost) : undefined;
  let decision: BillingDecision = NOT_BILLED;
  if (admission.chargeLater) decision = admission.chargeLater({ found: result.found, charged }) ?? NOT_BILLED;
  else if (!repeat && charged) {
    const settle = admission.settle;
    if (fingerprint === null) throw new Error("a credit-billed call has no request fingerprint");
    decision = new BillingOnReport(
      () => settle({ found: true, charged }) ?? nothingReserved(),
      (outcome) => outcome.billed.includes(fingerprint),
    );
  } else if (!repeat) admission.settle({ found: result.found });
  const quota =
    cap.quotaHeaders && cap.cost && !paidPerRequest ? await quotaHeaders(inv, cap.cost.balance, cap.quotaHeaders) : {};
  const response = new Response(JSON.stringify(result.body), {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", ...result.headers, ...quota },
  });
  return finish({ response: withHeaders(response, admission.headers), result, billing: decision, charged });
}

/** The decision of a call that reserved nothing: not billed. */
function nothingReserved(): PendingDecision<SettlementOutcome> {
  const decided = new PendingDecision<SettlementOutcome>();
  decided.decide({ billed: [], at: null, charged: {} });
  return decided;
}

/** A credit-billed call's price: the capability's base cost plus what its options use. */
function costOf(
  cap: AnyCapability,
  extra: Partial<Record<CreditBalance, number>> | undefined,
): Partial<Record<CreditBalance, number>> {
  const cost: Partial<Record<CreditBalance, number>> = { ...extra };
  if (cap.cost) cost[cap.cost.balance] = (cost[cap.cost.balance] ?? 0) + cap.cost.amount;
  return cost;
}

/** The allowance and what is left of one credit balance (this call's reservation already taken). */
async function quotaHeaders(
  inv: Invocation,
  balance: NonNullable<AnyCapability["cost"]>["balance"],
  names: NonNullable<AnyCapability["quotaHeaders"]>,
) {
  const view = (await (inv.client ?? isolateClient()).limiter(inv.env, inv.accountId).balances(inv.plan))[balance];
  return { [names.limit]: String(view.allowance), [names.remaining]: String(Math.max(0, view.available)) };
}
