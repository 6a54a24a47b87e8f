import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { normaliseEmail } from "../auth/password-sign-in.js";
import { db } from "../db/client.js";
import { type Account, accounts } from "../db/schema.js";
import { accountTokens } from "../db/schema-dashboard.js";
import { randomToken, sha256Hex } from "../platform/crypto.js";

/**
 * Accounts created by signing up, and the one-time links mailed to their holders. A new account is
 * unconfirmed (so /v1 answers it 401 account_unconfirmed) on the free plan until its holder opens
 * the confirmation link. Tokens are 256 random bits; only their SHA-256 is stored, each works once
 * and until its expiry, and issuing a new one retires the account's earlier ones of that purpose.
 */
export const CONFIRM_TTL_MS = 48 * 3_600_000;
export const RESET_TTL_MS = 3_600_000;
export const EMAIL_CHANGE_TTL_MS = 24 * 3_600_000;
const TTL = { confirm: CONFIRM_TTL_MS, reset: RESET_TTL_MS, email: EMAIL_CHANGE_TTL_MS } as const;
export type TokenPurpose = keyof typeof TTL;

export { normaliseEmail };

export async function accountByEmail(d1: D1Database, email: string): Promise<Account | undefined> {
  const [row] = await db(d1)
    .select()
    .from(accounts)
    .where(sql`lower(${accounts.email}) = ${normaliseEmail(email)}`)
    .limit(1);
  return row;
}

/** Creates an unconfirmed free account; undefined when the address already has one. */
export async function createAccount(
  d1: D1Database,
  email: string,
  passwordHash: string,
  now = Date.now(),
): Promise<Account | undefined> {
  const rows = await db(d1)
    .insert(accounts)
    .values({
      email: normaliseEmail(email),
      passwordHash,
      confirmed: false,
      plan: "free",
      kind: "user",
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  return rows[0];
}

export async function issueToken(
  d1: D1Database,
  accountId: number,
  purpose: TokenPurpose,
  now = Date.now(),
  newEmail?: string,
): Promise<string> {
  const token = randomToken(32);
  await db(d1).batch([
    db(d1)
      .delete(accountTokens)
      .where(
        and(eq(accountTokens.accountId, accountId), eq(accountTokens.purpose, purpose), isNull(accountTokens.usedAt)),
      ),
    db(d1)
      .insert(accountTokens)
      .values({
        tokenHash: await sha256Hex(token),
        accountId,
        purpose,
        createdAt: now,
        expiresAt: now + TTL[purpose],
        newEmail: newEmail ?? null,
      }),
  ]);
  return token;
}

/** Spends a token: the account it was issued to, once, before its expiry; else undefined. */
export async function redeemToken(
  d1: D1Database,
  token: string,
  purpose: TokenPurpose,
  now = Date.now(),
): Promise<number | undefined> {
  return (await spendToken(d1, token, purpose, now))?.accountId;
}

/**
 * Spends a token as redeemToken does, answering the address an `email` link sets too. With
 * `forAccount`, only a token of that account is spent (another account's session leaves it unspent).
 */
export async function spendToken(
  d1: D1Database,
  token: string,
  purpose: TokenPurpose,
  now = Date.now(),
  forAccount?: number,
): Promise<{ accountId: number; newEmail: string | null } | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const [row] = await db(d1)
    .update(accountTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(accountTokens.tokenHash, await sha256Hex(token)),
        eq(accountTokens.purpose, purpose),
        isNull(accountTokens.usedAt),
        sql`${accountTokens.expiresAt} > ${now}`,
        forAccount === undefined ? undefined : eq(accountTokens.accountId, forAccount),
      ),
    )
    .returning({ accountId: accountTokens.accountId, newEmail: accountTokens.newEmail });
  return row;
}

/** The account a token would be accepted for (the reset form is shown only for one that is), or undefined. */
export async function tokenHolder(
  d1: D1Database,
  token: string,
  purpose: TokenPurpose,
  now = Date.now(),
): Promise<{ accountId: number; email: string } | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const [row] = await db(d1)
    .select({ accountId: accountTokens.accountId, email: accounts.email })
    .from(accountTokens)
    .innerJoin(accounts, eq(accounts.id, accountTokens.accountId))
    .where(
      and(
        eq(accountTokens.tokenHash, await sha256Hex(token)),
        eq(accountTokens.purpose, purpose),
        isNull(accountTokens.usedAt),
        sql`${accountTokens.expiresAt} > ${now}`,
      ),
    )
    .limit(1);
  return row;
}

export async function markConfirmed(d1: D1Database, accountId: number): Promise<void> {
  await db(d1).update(accounts).set({ confirmed: true }).where(eq(accounts.id, accountId)).run();
}

export async function setPassword(d1: D1Database, accountId: number, passwordHash: string): Promise<void> {
  await db(d1).update(accounts).set({ passwordHash }).where(eq(accounts.id, accountId)).run();
}

/** Deletes tokens past their expiry (the hourly cron). */
export async function pruneTokens(d1: D1Database, now: number): Promise<void> {
  await db(d1).delete(accountTokens).where(lt(accountTokens.expiresAt, now)).run();
}
