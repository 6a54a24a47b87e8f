import type { Account, ApiKey } from "../db/schema.js";
import { expiringMap } from "../platform/isolate-state.js";

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

export interface VerifiedKey {
  key: ApiKey;
  actor: Account;
  owner: Account | null;
}

const entries = expiringMap<string, VerifiedKey>("verifiedKeys");

const cacheKey = (publicKey: string, secretHash: string) => `${publicKey}:${secretHash}`;

/** The verified rows for this exact credential if they were read less than AUTH_CACHE_TTL_MS ago. */
export function cachedKey(publicKey: string, secretHash: string, now: number): VerifiedKey | null {
  return entries.get(cacheKey(publicKey, secretHash), now, AUTH_CACHE_TTL_MS) ?? null;
}

export function rememberKey(publicKey: string, secretHash: string, value: VerifiedKey, now: number): void {
  entries.set(cacheKey(publicKey, secretHash), value, now);
}

/** Called when a key is revoked, reset or deleted, so this isolate stops accepting it at once. */
export function forgetKey(keyId: number): void {
  entries.deleteWhere((value) => value.key.id === keyId);
}

/** Called when an account changes in a way its keys' answers depend on (confirmed): its keys are read again. */
export function forgetAccountKeys(accountId: number): void {
  entries.deleteWhere((value) => value.actor.id === accountId || value.owner?.id === accountId);
}
