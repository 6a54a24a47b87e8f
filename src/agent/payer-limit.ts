import type { Env } from "../env.js";
import { errorResponse } from "../http/errors.js";
import { spendAttempt } from "../platform/throttle.js";

/**
 * Per-payer rate limit in front of the shared agents account. Every agent runs as that one account,
 * so without it a single payer could use up everyone's rate limits. Counted per payer address
 * (per client IP when the payment method names no payer), before the credential is held: the
 * 429 is unbilled and the credential stays spendable.
 */
export const DEFAULT_PAYER_RPM = 60;

export function payerLimit(env: Pick<Env, "AGENT_PAYER_RPM">): number {
  const n = Number(env.AGENT_PAYER_RPM);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_PAYER_RPM;
}

/** Null when admitted; otherwise the 429 to send. */
export async function admitPayer(
  env: Env,
  payer: string | null,
  clientIp: string | undefined,
): Promise<Response | null> {
  const who = payer ? `payer:${payer.toLowerCase()}` : `ip:${clientIp ?? "unknown"}`;
  const limit = payerLimit(env);
  const wait = await spendAttempt(env, [{ subject: `agent-${who}`, window: "agent-calls", limit, windowMs: 60_000 }]);
  if (wait === null) return null;
  return errorResponse(
    429,
    "rate_limit",
    `Rate limit reached: ${limit} paid requests per minute per payer. Your credential was not charged and stays spendable; retry after ${wait} seconds.`,
    { "retry-after": String(wait), "x-payment-charged": "false" },
  );
}
