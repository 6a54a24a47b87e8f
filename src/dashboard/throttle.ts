import type { Env } from "../env.js";
import { sha256Hex } from "../platform/crypto.js";
import { spendAttempt } from "../platform/throttle.js";

/**
 * What the dashboard's public forms may be asked, like the device page's codes (src/oauth/
 * device-throttle.ts): accounts created per address, and mail sent per address and per recipient
 * (no one can flood an inbox through the reset form). Password guesses have their own throttle,
 * shared with the OAuth pages (src/auth/password-sign-in.ts).
 */
export const DASHBOARD_LIMITS = {
  signUpPerAddress: { limit: 5, windowMs: 3_600_000 },
  mailPerAddress: { limit: 10, windowMs: 3_600_000 },
  mailPerRecipient: { limit: 3, windowMs: 3_600_000 },
} as const;

const emailSubject = async (email: string) => `dashboard-email:${await sha256Hex(email)}`;

export function throttleSignUp(env: Env, ip: string): Promise<number | null> {
  return spendAttempt(env, [
    { subject: `ip:${ip}`, window: "dashboard:sign-up", ...DASHBOARD_LIMITS.signUpPerAddress },
  ]);
}

/** A confirmation or reset message about to be sent to `email`. */
export async function throttleMail(env: Env, ip: string, email: string): Promise<number | null> {
  return spendAttempt(env, [
    { subject: `ip:${ip}`, window: "dashboard:mail", ...DASHBOARD_LIMITS.mailPerAddress },
    { subject: await emailSubject(email), window: "dashboard:mail", ...DASHBOARD_LIMITS.mailPerRecipient },
  ]);
}
