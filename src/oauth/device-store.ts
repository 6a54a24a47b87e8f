import { and, eq, isNull, lte, or, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { type OAuthDeviceCode, oauthDeviceCodes } from "../db/schema-oauth.js";
import { randomToken, sha256Hex } from "../platform/crypto.js";

export const DEVICE_CODE_TTL_SECONDS = 600;
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 §6.1: consonants only (no vowels, no look-alikes), 8 characters ≈ 34 bits. */
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

const store = (d1: D1Database) => drizzle(d1);

export function newUserCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  // 256 % 20 = 16: a slight bias toward the first 16 letters, harmless at this length.
  return [...bytes].map((b) => USER_CODE_ALPHABET[b % USER_CODE_ALPHABET.length]).join("");
}

/** What the person types, in any case, with or without the dash or spaces. */
export function normaliseUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, "");
  return code.length === 8 && [...code].every((ch) => USER_CODE_ALPHABET.includes(ch)) ? code : null;
}

export const displayUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

export async function createDeviceCode(d1: D1Database, clientId: string, scope: string[], now = Date.now()) {
  const deviceCode = randomToken(32);
  const userCode = newUserCode();
  await store(d1)
    .insert(oauthDeviceCodes)
    .values({
      deviceCodeHash: await sha256Hex(deviceCode),
      userCode,
      clientId,
      scope: scope.join(" "),
      intervalSeconds: DEVICE_POLL_INTERVAL_SECONDS,
      expiresAt: now + DEVICE_CODE_TTL_SECONDS * 1000,
    });
  return { deviceCode, userCode };
}

export async function findByDeviceCode(d1: D1Database, deviceCode: string): Promise<OAuthDeviceCode | null> {
  const [row] = await store(d1)
    .select()
    .from(oauthDeviceCodes)
    .where(eq(oauthDeviceCodes.deviceCodeHash, await sha256Hex(deviceCode)))
    .limit(1);
  return row ?? null;
}

export async function findPendingByUserCode(
  d1: D1Database,
  userCode: string,
  now = Date.now(),
): Promise<OAuthDeviceCode | null> {
  const [row] = await store(d1).select().from(oauthDeviceCodes).where(eq(oauthDeviceCodes.userCode, userCode)).limit(1);
  return row && row.status === "pending" && row.expiresAt > now ? row : null;
}

/**
 * Records a poll. One conditional write decides it: the poll counts when the interval has passed;
 * otherwise the interval grows by 5 seconds (RFC 8628 §3.5 slow_down) and the poll is refused.
 */
export async function admitPoll(
  d1: D1Database,
  id: number,
  now = Date.now(),
): Promise<{ admitted: boolean; intervalSeconds: number }> {
  const s = store(d1);
  const admitted = await s
    .update(oauthDeviceCodes)
    .set({ lastPolledAt: now })
    .where(
      and(
        eq(oauthDeviceCodes.id, id),
        or(
          isNull(oauthDeviceCodes.lastPolledAt),
          lte(oauthDeviceCodes.lastPolledAt, sql`${now} - ${oauthDeviceCodes.intervalSeconds} * 1000`),
        ),
      ),
    )
    .returning({ intervalSeconds: oauthDeviceCodes.intervalSeconds });
  const [poll] = admitted;
  if (poll) return { admitted: true, intervalSeconds: poll.intervalSeconds };
  const slowed = await s
    .update(oauthDeviceCodes)
    .set({ intervalSeconds: sql`${oauthDeviceCodes.intervalSeconds} + 5`, lastPolledAt: now })
    .where(eq(oauthDeviceCodes.id, id))
    .returning({ intervalSeconds: oauthDeviceCodes.intervalSeconds });
  return { admitted: false, intervalSeconds: slowed[0]?.intervalSeconds ?? DEVICE_POLL_INTERVAL_SECONDS };
}

/** Approves a pending, unexpired request; false when it was already answered or has expired. */
export async function approveDeviceCode(
  d1: D1Database,
  id: number,
  grant: { accountId: number; authorizationCode: string; codeVerifier: string; redirectUri: string },
  now = Date.now(),
): Promise<boolean> {
  const rows = await store(d1)
    .update(oauthDeviceCodes)
    .set({ status: "approved", ...grant })
    .where(
      and(
        eq(oauthDeviceCodes.id, id),
        eq(oauthDeviceCodes.status, "pending"),
        sql`${oauthDeviceCodes.expiresAt} > ${now}`,
      ),
    )
    .returning({ id: oauthDeviceCodes.id });
  return rows.length > 0;
}

export async function denyDeviceCode(d1: D1Database, id: number, accountId: number): Promise<boolean> {
  const rows = await store(d1)
    .update(oauthDeviceCodes)
    .set({ status: "denied", accountId })
    .where(and(eq(oauthDeviceCodes.id, id), eq(oauthDeviceCodes.status, "pending")))
    .returning({ id: oauthDeviceCodes.id });
  return rows.length > 0;
}

/** Takes a finished request (approved or denied) off the table; only one poll can win it. */
export async function takeDeviceCode(d1: D1Database, id: number): Promise<OAuthDeviceCode | null> {
  const [row] = await store(d1).delete(oauthDeviceCodes).where(eq(oauthDeviceCodes.id, id)).returning();
  return row ?? null;
}
