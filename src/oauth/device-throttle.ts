import type { Env } from "../env.js";
import { spendAttempt } from "../platform/throttle.js";

/**
 * RFC 8628 §5.1: a user code has about 34 bits, so typing codes must be rate limited or the
 * device page becomes a way to guess someone's pending code (and approve their device onto the
 * guesser's account). Every code submitted on the device page or its decision form counts,
 * right or wrong, against three budgets: the client address, the signed-in account (one person
 * behind many addresses) and the code itself (one pending device, however many guessers).
 */
export const DEVICE_CODE_LIMITS = {
  perAddress: { limit: 10, windowMs: 60_000 },
  perAccount: { limit: 10, windowMs: 60_000 },
  /** A code lives 10 minutes (DEVICE_CODE_TTL_SECONDS): 5 submissions in its lifetime is plenty for a person. */
  perCode: { limit: 5, windowMs: 600_000 },
} as const;

/** Counts one code submission; the seconds to wait when a budget is used up, else null. */
export function throttleDeviceCode(
  env: Env,
  who: { ip: string; accountId: number; code: string },
): Promise<number | null> {
  return spendAttempt(env, [
    { subject: `ip:${who.ip}`, window: "device-code:address", ...DEVICE_CODE_LIMITS.perAddress },
    {
      subject: `device-code-account:${who.accountId}`,
      window: "device-code:account",
      ...DEVICE_CODE_LIMITS.perAccount,
    },
    { subject: `device-code:${who.code}`, window: "device-code:code", ...DEVICE_CODE_LIMITS.perCode },
  ]);
}
