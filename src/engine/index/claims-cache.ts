import { expiringMap, isolateValue } from "../../platform/isolate-state.js";

/**
 * In-isolate memory of recent claim lookups (assertNotClaimed), so a value asked about again and
 * again (the same number validated in a loop) does not pay a D1 read on every call.
 *
 * Bound: an answer is used at most `ttlMs` after it was read from D1 (CLAIMS_CACHE_TTL_MS, default
 * 5 s). A claim added or removed through the operator API is seen at once by the isolate that
 * handled it (addClaim/removeClaim forget the value here); other isolates see it within `ttlMs`.
 * Set CLAIMS_CACHE_TTL_MS to "0" to read D1 on every call (the test suite does, because its
 * fixtures write claims straight into D1, behind this cache's back).
 */
export const DEFAULT_CLAIMS_CACHE_TTL_MS = 5_000;
const entries = expiringMap<string, boolean>("claimLookups");

/** The TTL configured for this deployment (an unset or unreadable value keeps the default). */
export function claimsCacheTtl(configured: string | undefined): number {
  if (configured === undefined || configured.trim() === "") return DEFAULT_CLAIMS_CACHE_TTL_MS;
  const ms = Number(configured);
  return Number.isFinite(ms) && ms >= 0 ? ms : DEFAULT_CLAIMS_CACHE_TTL_MS;
}

/** Whether `key` was claimed, if that was read less than `ttlMs` ago; undefined when unknown. */
export function cachedClaim(key: string, now: number, ttlMs: number): boolean | undefined {
  return entries.get(key, now, ttlMs);
}

export function rememberClaim(key: string, claimed: boolean, now: number, ttlMs: number): void {
  if (ttlMs > 0) entries.set(key, claimed, now);
}

/**
 * Every claim of a kind, held whole while the kind has at most MAX_KIND_SNAPSHOT of them, so a
 * value never asked before (a new number validated, a billed call) is answered without a D1 read:
 * one read of the kind per `ttlMs` per isolate instead of one per value. Same bound as the entries
 * above (a snapshot is used at most `ttlMs` after it was read); `null` values mean the kind has too
 * many claims to hold, and lookups go value by value.
 */
export const MAX_KIND_SNAPSHOT = 10_000;
const snapshots = expiringMap<string, ReadonlySet<string> | null>("claimKinds");
/** Bumped by every claim added or removed here: a snapshot read before that is not kept. */
const generation = isolateValue<number>("claimKindsGeneration");

/** The claims of `kind` as read less than `ttlMs` ago: a set, null (too many to hold) or undefined (not read). */
export function cachedKind(kind: string, now: number, ttlMs: number): ReadonlySet<string> | null | undefined {
  return snapshots.get(kind, now, ttlMs);
}

/** Where the snapshot generation stands, to pass to rememberKind when the read comes back. */
export function claimsGeneration(): number {
  return generation.get() ?? 0;
}

export function rememberKind(
  kind: string,
  values: ReadonlySet<string> | null,
  readAt: number,
  ttlMs: number,
  readInGeneration: number,
): void {
  if (ttlMs > 0 && readInGeneration === claimsGeneration()) snapshots.set(kind, values, readAt);
}

/** A claim on `key` was added or removed in this isolate: the next lookup reads D1. */
export function forgetClaim(key: string): void {
  entries.delete(key);
  generation.set(claimsGeneration() + 1);
  snapshots.delete(key.slice(0, key.indexOf(":")));
}
