import { inIndexFlow } from "../../db/index-sessions.js";
import { errorResponse, toErrorResponse } from "../../http/errors.js";
import { withHeaders } from "../../http/headers.js";
import { type BillingDecision, BillingOnReport, NOT_BILLED } from "../../limits/billing-decision.js";
import { isolateClient } from "../../limits/limiter-client.js";
import type { Execution, Invocation } from "./invocation.js";
import type { AnyCapability } from "./registry.js";
import { billedParts, releaseOf, runCalls, settlementOf } from "./run-calls.js";
import { logSurfaceCall } from "./surface-log.js";

export type { Execution, Invocation } from "./invocation.js";

/**
 * Runs one capability call the same way for every surface: the one executor (run-calls.ts) with a
 * batch of one. Admit (rate limit + credit reservation, one round trip, or the isolate's lease),
 * run the handler, then settle (charge if something new was found, refund otherwise) once the
 * surface takes the call's report. The answer carries the rate-limit headers the admission
 * produced, errors included.
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
  const finish = (execution: Execution): Execution => {
    if (inv.surface !== "v1") logSurfaceCall(inv, cap, params, execution, now() - started);
    return execution;
  };
  const run = await runCalls(cap, [params], {
    env: inv.env,
    waitUntil: inv.waitUntil,
    accountId: inv.accountId,
    plan: inv.plan,
    client,
    now,
    // Bulk rows are paced by the job's queue; dashboard searches have counters of their own.
    rateGroup: inv.surface === "bulk" ? null : inv.fromDashboard && cap.rateGroup ? "searches" : cap.rateGroup,
    source: inv.surface === "bulk" ? "bulk" : inv.fromDashboard ? "website" : "api",
    creditBilled,
    // A window this isolate already knows is open (exact: see LimiterClient.knownRepeat) needs no
    // decision: the admission only counts the rate limit (on plans without limits, without a round trip).
    knownFree: (fingerprint) => client.knownRepeat(inv.accountId, fingerprint, started),
    // Options priced up front and quota headers need the limiter before the answer.
    chargeLater: inv.chargeLater && !cap.extraCostFor && !cap.quotaHeaders,
    concurrency: 1,
    // One flow of index reads and writes: each sees the call's own writes (src/db/index-sessions.ts).
    run: (p) =>
      inIndexFlow(() =>
        cap.handler(p, { env: inv.env, now, waitUntil: inv.waitUntil, surface: inv.surface, accountId: inv.accountId }),
      ),
  });
  if (!("results" in run)) return finish({ response: withHeaders(run.refusal, run.headers), billing: NOT_BILLED });
  const { admission } = run;
  const fingerprint = run.fingerprints[0];
  const openedAt = fingerprint !== null ? admission.repeats[fingerprint] : undefined;
  // A window kept by an earlier call is remembered; one whose call is still running is not (it may close).
  if (fingerprint !== null && typeof openedAt === "number") client.rememberWindow(inv.accountId, fingerprint, openedAt);
  const release = () => {
    if (admission.chargeLater) admission.chargeLater({ found: false });
    const nothing = releaseOf(run);
    if (nothing) client.settle(inv.env, inv.accountId, inv.plan, nothing, inv.waitUntil);
  };

  const outcome = run.results[0];
  if (!outcome?.ok) {
    release();
    const response = toErrorResponse(outcome?.error);
    return finish({ response: withHeaders(response, admission.headers), billing: NOT_BILLED });
  }
  const result = outcome.result;
  // The limiter decides after the answer whether a call that found something new was billed: from
  // the isolate's lease (a late charge), or by keeping its reservation (the settlement). Credits were
  // set aside before the answer either way, so the next request already sees the lower balance.
  // What it found is charged once the surface takes the call's report (BillingOnReport): a request
  // that ends before reporting its answer never gave it, and is charged nothing.
  if (inv.answerDropped?.()) {
    release();
    return finish({
      response: withHeaders(
        errorResponse(504, "gateway_timeout", "The request ran past its deadline; nothing was charged."),
        admission.headers,
      ),
      billing: NOT_BILLED,
    });
  }
  const { parts, charged: perCall } = billedParts(cap, run);
  const charged = perCall[0] ?? undefined;
  let decision: BillingDecision = NOT_BILLED;
  // `charged` is set only for a credit-billed request that found something new (billedParts).
  const settlement = charged ? settlementOf(run, parts) : null;
  if (admission.chargeLater) decision = admission.chargeLater({ found: result.found, charged }) ?? NOT_BILLED;
  else if (settlement && fingerprint !== null)
    decision = new BillingOnReport(
      () => client.settle(inv.env, inv.accountId, inv.plan, settlement, inv.waitUntil),
      (decided) => decided.billed.includes(fingerprint),
    );
  else release();
  const quota =
    cap.quotaHeaders && cap.cost && !paidPerRequest ? await quotaHeaders(inv, cap.cost.balance, cap.quotaHeaders) : {};
  const response = new Response(JSON.stringify(result.body), {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", ...result.headers, ...quota },
  });
  return finish({ response: withHeaders(response, admission.headers), result, billing: decision, charged });
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
