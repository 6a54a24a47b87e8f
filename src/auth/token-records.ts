import type { Env } from "../env.js";
import { sha256Hex } from "../platform/crypto.js";

/**
 * Our own note of every access token the token endpoint hands out, so a refused bearer token can be
 * told apart: expired, revoked, or never issued here. The library deletes an access token's KV record
 * when it expires or is revoked, which leaves it unable to say which. Kept a week past expiry.
 */
interface IssuedTokenRecord {
  /** Unix seconds. */
  expiresAt: number;
  /** Unix seconds; set by the revocation endpoint. */
  revokedAt?: number;
}

const KEEP_AFTER_EXPIRY_SECONDS = 7 * 86_400;
const key = (tokenHash: string) => `issued-access-token:${tokenHash}`;

/** The shape the library gives its tokens: `userId:grantId:secret`. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,64}:[A-Za-z0-9_-]{1,64}:[A-Za-z0-9_-]{16,128}$/;

/** Records the access token of a successful token response (code, refresh or device grant). */
export async function recordIssuedToken(env: Env, response: Response): Promise<void> {
  if (!response.ok) return;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { access_token?: unknown; expires_in?: unknown } | null;
  if (typeof body?.access_token !== "string" || typeof body.expires_in !== "number") return;
  const expiresAt = Math.floor(Date.now() / 1000) + body.expires_in;
  const record: IssuedTokenRecord = { expiresAt };
  await env.OAUTH_KV.put(key(await sha256Hex(body.access_token)), JSON.stringify(record), {
    expirationTtl: body.expires_in + KEEP_AFTER_EXPIRY_SECONDS,
  });
}

/** Marks a token revoked (RFC 7009 request); harmless for refresh tokens and unknown strings. */
export async function recordRevokedToken(env: Env, token: string): Promise<void> {
  const k = key(await sha256Hex(token));
  const record = await env.OAUTH_KV.get<IssuedTokenRecord>(k, "json");
  if (!record) return;
  record.revokedAt = Math.floor(Date.now() / 1000);
  const ttl = Math.max(60, record.expiresAt + KEEP_AFTER_EXPIRY_SECONDS - record.revokedAt);
  await env.OAUTH_KV.put(k, JSON.stringify(record), { expirationTtl: ttl });
}

export type RefusedTokenReason = "expired" | "revoked" | "unknown";

/** Why the library refused a well-formed token. */
export async function whyRefused(env: Env, token: string, nowMs = Date.now()): Promise<RefusedTokenReason> {
  const record = await env.OAUTH_KV.get<IssuedTokenRecord>(key(await sha256Hex(token)), "json");
  if (!record) return "unknown";
  if (record.revokedAt !== undefined) return "revoked";
  if (record.expiresAt * 1000 <= nowMs) return "expired";
  // Issued, unexpired, never revoked by itself: its grant was revoked (refresh token revoked,
  // re-authorization, app deleted).
  return "revoked";
}
