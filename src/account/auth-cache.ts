import type { Account, ApiKey } from "../db/schema.js";

/**
 * In-isolate cache of verified API keys, so a busy key does not pay a D1 join on every request.
 *
 * Entries are keyed by the public key AND the SHA-256 of the secret that was verified, so only the
 * exact credential that already passed the check is answered from memory; a wrong secret always
 * goes to D1. Only successful lookups are cached: a key that starts working is seen at once.
 *
 * What the cached rows decide:
 * - key expiry and subscription expiry are compared with the clock on every request, so they take
 *   effect exactly on time;
 * - revoking, resetting or deleting a key through /v1/keys forgets it in this isolate at once;
 * - anything else changed in D1 behind the API's back (a revocation seen by another isolate, an
 *   account blocked or unconfirmed by an operator, a workspace change, a plan change) takes effect
 *   within AUTH_CACHE_TTL_MS, because no entry is used longer than that after it was read.
 */
export const AUTH_CACHE_TTL_MS = 10_000;
/** Bounds memory: beyond this many credentials the oldest entry is dropped. */
const MAX_ENTRIES = 5_000;

export interface VerifiedKey {
  key: ApiKey;
  actor: Account;
  owner: Account | null;
}

interface Entry {
  value: VerifiedKey;
  readAt: number;
}

const entries = new Map<string, Entry>();

const cacheKey = (publicKey: string, secretHash: string) => `${publicKey}:${secretHash}`;

/** The verified rows for this exact credential if they were read less than AUTH_CACHE_TTL_MS ago. */
export function cachedKey(publicKey: string, secretHash: string, now: number): VerifiedKey | null {
  const k = cacheKey(publicKey, secretHash);
  const entry = entries.get(k);
  if (!entry) return null;
  // A clock that moved backwards (tests, or skew) must not stretch an entry's life either.
  if (now - entry.readAt >= AUTH_CACHE_TTL_MS || now < entry.readAt) {
    entries.delete(k);
    return null;
  }
  return entry.value;
}

export function rememberKey(publicKey: string, secretHash: string, value: VerifiedKey, now: number): void {
  const k = cacheKey(publicKey, secretHash);
  entries.delete(k);
  if (entries.size >= MAX_ENTRIES) {
    // Maps iterate in insertion order: the first entry is the oldest.
    const oldest = entries.keys().next().value;
    if (oldest !== undefined) entries.delete(oldest);
  }
  entries.set(k, { value, readAt: now });
}

/** Called when a key is revoked, reset or deleted, so this isolate stops accepting it at once. */
export function forgetKey(keyId: number): void {
  for (const [k, entry] of entries) if (entry.value.key.id === keyId) entries.delete(k);
}
