import { sql } from "drizzle-orm";
import { db } from "../db/client.js";
import { type Account, accounts } from "../db/schema.js";
import type { Env } from "../env.js";
import { hashPassword, sha256Hex, verifyPassword } from "../platform/crypto.js";
import { isolateValue } from "../platform/isolate-state.js";
import { spendAttempt } from "../platform/throttle.js";

/**
 * Signing in with an email and a password, for every page that asks for them (the dashboard's and
 * the OAuth pages'): one throttle, one equal-timing check, one answer for every refusal.
 *
 * Password guesses are bounded three ways. Per client address (one guesser trying many accounts).
 * Per account and address: ten wrong passwords from one place close the account to that place only,
 * so nobody can lock the owner out from elsewhere. Per account from every address not yet known to
 * it (one guesser behind many addresses): an address the account signed in from before (within
 * KNOWN_ADDRESS_TTL_SECONDS) does not spend it, so an attacker who uses it up still leaves the owner
 * signed in from home; a new address waits. Every attempt counts, right or wrong.
 */
export const SIGN_IN_LIMITS = {
  perAddress: { limit: 10, windowMs: 60_000 },
  perAccountFromAddress: { limit: 10, windowMs: 15 * 60_000 },
  perAccountFromNewAddresses: { limit: 30, windowMs: 3_600_000 },
} as const;
const KNOWN_ADDRESS_TTL_SECONDS = 90 * 86_400;

export type SignInAttempt =
  | { outcome: "signed-in"; account: Account }
  /** Too many attempts: the seconds to wait. */
  | { outcome: "throttled"; retryAfter: number }
  /** No such account, a wrong password, or an account that may not sign in: one answer for all. */
  | { outcome: "refused" };

/** What every refused attempt is told. */
export const WRONG_PASSWORD = "The email or password is wrong.";

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

const accountKey = async (email: string) => sha256Hex(`sign-in\n${normaliseEmail(email)}`);
const fromAddressKey = async (email: string, ip: string) => sha256Hex(`sign-in\n${normaliseEmail(email)}\n${ip}`);
const knownAddressKey = async (email: string, ip: string) => `known-sign-in-address:${await fromAddressKey(email, ip)}`;

/** Spends one attempt of every budget the attempt falls under; the seconds to wait when one is used up. */
export async function throttleSignIn(env: Env, ip: string, email: string): Promise<number | null> {
  const known = (await env.OAUTH_KV.get(await knownAddressKey(email, ip))) !== null;
  return spendAttempt(env, [
    { subject: `ip:${ip}`, window: "sign-in", ...SIGN_IN_LIMITS.perAddress },
    {
      subject: `sign-in:${await fromAddressKey(email, ip)}`,
      window: "sign-in",
      ...SIGN_IN_LIMITS.perAccountFromAddress,
    },
    ...(known
      ? []
      : [
          {
            subject: `sign-in:${await accountKey(email)}`,
            window: "sign-in",
            ...SIGN_IN_LIMITS.perAccountFromNewAddresses,
          },
        ]),
  ]);
}

// Compared against when the email matches no account, so both cases cost one PBKDF2 run.
const dummyHash = isolateValue<Promise<string>>("signInDummyHash");

/**
 * Checks an email and password from `ip`. A blocked account, a service account, and (unless
 * `allowUnconfirmed`) an unconfirmed one are refused exactly like a wrong password, whatever the
 * password: the answer never tells a right password of an account that cannot sign in.
 */
export async function signInWithPassword(
  env: Env,
  attempt: { ip: string; email: string; password: string; allowUnconfirmed: boolean },
): Promise<SignInAttempt> {
  const email = normaliseEmail(attempt.email);
  const wait = await throttleSignIn(env, attempt.ip, email);
  if (wait !== null) return { outcome: "throttled", retryAfter: wait };
  const [account] = await db(env.DB).select().from(accounts).where(sql`lower(${accounts.email}) = ${email}`).limit(1);
  const unknownHash = dummyHash.get() ?? dummyHash.set(hashPassword("no account has this password"));
  const matches = await verifyPassword(attempt.password, account?.passwordHash ?? (await unknownHash));
  const mayUse = account?.kind === "user" && !account.blocked && (account.confirmed || attempt.allowUnconfirmed);
  if (!account?.passwordHash || !matches || !mayUse) return { outcome: "refused" };
  await env.OAUTH_KV.put(await knownAddressKey(email, attempt.ip), "1", { expirationTtl: KNOWN_ADDRESS_TTL_SECONDS });
  return { outcome: "signed-in", account };
}
