import type { Env } from "../env.js";
import { ApiError, errorResponse, toErrorResponse } from "../http/errors.js";
import { withHeaders } from "../http/headers.js";
import { admitRequest } from "../limits/gate.js";
import type { Capability, CapabilityResult } from "./registry.js";

export interface Invocation {
  env: Env;
  waitUntil(promise: Promise<unknown>): void;
  accountId: number;
  plan: string;
  surface: "v1" | "agent" | "bulk";
  now?: () => number;
}

export interface Execution {
  response: Response;
  result?: CapabilityResult;
}

/**
 * Runs one capability call the same way for every surface: admit (rate limit + credit reservation,
 * one round trip), run the handler, then settle (charge if something was found, refund otherwise).
 * The answer carries the rate-limit headers the admission produced, errors included.
 */
export async function executeCapability(cap: Capability, params: Record<string, unknown>, inv: Invocation): Promise<Execution> {
  const now = inv.now ?? Date.now;
  // On the agent surface the payment is the charge: the shared agents account spends no credits,
  // but its calls still count against the shared rate limits.
  const paidPerRequest = inv.surface === "agent";
  const admission = await admitRequest(inv.env, {
    accountId: inv.accountId,
    plan: inv.plan,
    // Bulk rows are paced by the job's queue, not by the per-request table; their credits are the same.
    capability: paidPerRequest ? { ...cap, cost: null } : inv.surface === "bulk" ? { ...cap, rateGroup: null } : cap,
    extraCost: paidPerRequest ? {} : (cap.extraCostFor?.(params as never) ?? {}),
    now: now(),
  });
  if (!admission.admitted) return { response: withHeaders(admission.refusal, admission.headers) };

  let result: CapabilityResult;
  try {
    result = await cap.handler(params as never, { env: inv.env, now, waitUntil: inv.waitUntil, surface: inv.surface, accountId: inv.accountId });
  } catch (err) {
    inv.waitUntil(admission.settle({ found: false }));
    const response = err instanceof ApiError ? errorResponse(err.status, err.type, err.message, err.headers) : toErrorResponse(err);
    return { response: withHeaders(response, admission.headers) };
  }
  // Credits were taken at admission, so the next request already sees the lower balance; settling
  // (refund when nothing was found, extra charges) can finish off the response path.
  inv.waitUntil(admission.settle({ found: result.found, extraCost: paidPerRequest ? undefined : result.extraCost }));
  const response = new Response(JSON.stringify(result.body), {
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", ...result.headers },
  });
  return { response: withHeaders(response, admission.headers), result };
}
