import type { Env } from "../../env.js";
import { toErrorResponse } from "../../http/errors.js";
import { withHeaders } from "../../http/headers.js";
import { admitRequest, limiterFor } from "../../limits/admission.js";
import { billedRecently, knownRepeat, recordCharge, requestFingerprint } from "../../limits/repeat-billing.js";
import { logSurfaceCall } from "./surface-log.js";
import type { Execution, Invocation } from "./invocation.js";
import type { AnyCapability, CapabilityResult } from "./registry.js";
import { logError } from "../../request-context.js";

export type { Execution, Invocation } from "./invocation.js";

/**
 * Runs one capability call the same way for every surface: admit (rate limit + credit reservation,
 * one round trip), run the handler, then settle (charge if something was found, refund otherwise).
 * The answer carries the rate-limit headers the admission produced, errors included.
 */
export async function executeCapability(cap: AnyCapability, params: Record<string, unknown>, inv: Invocation): Promise<Execution> {
  const now = inv.now ?? Date.now;
  const started = now();
  // On the agent surface the payment is the charge: the shared agents account spends no credits,
  // but its calls still count against the shared rate limits.
  const paidPerRequest = inv.surface === "agent";
  const creditBilled = !paidPerRequest && cap.cost !== null;
  // Contract §4: the same request within 30 days of a billed one is answered free. The lookup runs
  // beside the admission (one round trip each, in parallel); a repeat gives its reservation back.
  const fingerprint = creditBilled ? await requestFingerprint(cap.name, params) : null;
  const paced = inv.surface === "bulk" ? { ...cap, rateGroup: null } : cap;
  const admit = (free: boolean) =>
    admitRequest(inv.env, {
      accountId: inv.accountId,
      plan: inv.plan,
      // Bulk rows are paced by the job's queue, not by the per-request table; their credits are the same.
      capability: free ? { ...paced, cost: null } : paced,
      extraCost: free ? {} : (cap.extraCostFor?.(params) ?? {}),
      now: started,
      waitUntil: inv.waitUntil,
    });
  // A window this isolate already knows is open (exact: see knownRepeat) skips both the D1 lookup
  // and the reservation it would give back: the admission only counts the rate limit.
  const knownFree = fingerprint !== null && knownRepeat(inv.accountId, fingerprint, started);
  let [repeat, admission] = knownFree
    ? [true, await admit(true)]
    : await Promise.all([fingerprint !== null ? billedRecently(inv.env, inv.accountId, fingerprint, started) : false, admit(paidPerRequest)]);
  if (repeat && !knownFree) {
    // Found in D1 while the admission reserved credits: give them back.
    if (admission.admitted) inv.waitUntil(admission.settle({ found: false }));
    // An empty balance does not stop a free repeat; the rate limit still applies.
    else if (refusedForCredits(admission.refusal)) admission = await admit(true);
  }
  const free = paidPerRequest || repeat;
  const finish = (execution: Execution): Execution => {
    if (inv.surface !== "v1") logSurfaceCall(inv, cap, params, execution, now() - started);
    return execution;
  };
  if (!admission.admitted) return finish({ response: withHeaders(admission.refusal, admission.headers), billed: false });

  let result: CapabilityResult;
  try {
    result = await cap.handler(params, { env: inv.env, now, waitUntil: inv.waitUntil, surface: inv.surface, accountId: inv.accountId });
  } catch (err) {
    if (!repeat) inv.waitUntil(admission.settle({ found: false }));
    const response = toErrorResponse(err);
    return finish({ response: withHeaders(response, admission.headers), billed: false });
  }
  // Credits were taken at admission, so the next request already sees the lower balance; settling
  // (refund when nothing was found, extra charges) can finish off the response path. A repeat's
  // reservation was already given back above.
  if (!repeat) inv.waitUntil(admission.settle({ found: result.found, extraCost: free ? undefined : result.extraCost }));
  const billed = creditBilled && !repeat && result.found;
  if (billed) {
    const charge = { accountId: inv.accountId, fingerprint: fingerprint!, capability: cap.name, source: inv.surface === "bulk" ? "bulk" : "api", now: started } as const;
    inv.waitUntil(recordCharge(inv.env, charge).catch((err) => logError("charge record failed", err)));
  }
  const quota = cap.quotaHeaders && cap.cost && !paidPerRequest ? await quotaHeaders(inv, cap.cost.balance, cap.quotaHeaders) : {};
  const response = new Response(JSON.stringify(result.body), {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", ...result.headers, ...quota },
  });
  return finish({ response: withHeaders(response, admission.headers), result, billed });
}

/** A refusal for an empty balance (402, or 429 without Retry-After), as opposed to a rate limit (429 with Retry-After). */
function refusedForCredits(refusal: Response): boolean {
  return refusal.status === 402 || (refusal.status === 429 && !refusal.headers.has("retry-after"));
}

/** The allowance and what is left of one credit balance (this call's reservation already taken). */
async function quotaHeaders(inv: Invocation, balance: NonNullable<AnyCapability["cost"]>["balance"], names: NonNullable<AnyCapability["quotaHeaders"]>) {
  const view = (await limiterFor(inv.env, inv.accountId).balances(inv.plan, Date.now()))[balance];
  return { [names.limit]: String(view.allowance), [names.remaining]: String(Math.max(0, view.available)) };
}
