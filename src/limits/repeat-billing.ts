import { and, eq, gt, inArray, lt, sql } from "drizzle-orm";
import { sha256Hex } from "../account/crypto.js";
import { db } from "../db/client.js";
import { billedRequests, usageDays } from "../db/schema-contract.js";
import type { Env } from "../env.js";
import { DAY_MS, startOfUtcDay } from "../http/time.js";
import { ExpiringMap } from "../util/expiring-map.js";

/**
 * Credits rule (contract §4): an identical request (same capability, same normalised parameters,
 * same account) is billed once per 30 days. The first billed answer opens the window; repeats
 * inside it answer normally, use no credits and are logged with `cost: false`. A repeat does not
 * extend the window. Two identical requests racing each other can both be billed (the lookup is
 * not a lock): the rule is a courtesy to the caller, never a reason to refuse.
 */
export const REPEAT_WINDOW_MS = 30 * DAY_MS;

/** Parameters that do not change the answer are left out of the fingerprint. */
const IGNORED = new Set(["webhook_url"]);
/** Values compared without case (addresses, domains, names); URLs and the rest keep theirs. */
const CASELESS = new Set(["email", "domain", "company", "first_name", "last_name", "full_name", "type", "department", "country"]);

/** The normalised parameters as one canonical string: sorted keys, trimmed, empty values dropped. */
export function normalisedParams(params: Record<string, unknown>): string {
  const entries: [string, unknown][] = [];
  for (const key of Object.keys(params).sort()) {
    if (IGNORED.has(key)) continue;
    let value = params[key];
    if (value === undefined || value === null || value === "" || value === false) continue;
    if (typeof value === "string") value = CASELESS.has(key) ? value.trim().toLowerCase() : value.trim();
    entries.push([key, value]);
  }
  return JSON.stringify(entries);
}

export async function requestFingerprint(capability: string, params: Record<string, unknown>): Promise<string> {
  return sha256Hex(`${capability}\n${normalisedParams(params)}`);
}

/**
 * Windows this isolate knows to be open: (account, fingerprint) -> the billing instant that opened
 * it. Remembering them is exact, not a staleness trade: a window, once opened, stays open for its
 * 30 days whatever else happens (a repeat does not move it, pruning only drops closed ones), so a
 * remembered window answers "repeat" exactly as D1 would until it closes, and is then forgotten.
 * Only "not billed" answers go to D1 every time (they change as soon as a call is billed).
 */
const MAX_OPEN_WINDOWS = 20_000;
/** (account, fingerprint) -> true, stored at the billing instant that opened the window. */
const openWindows = new ExpiringMap<string, true>(MAX_OPEN_WINDOWS);
const windowKey = (accountId: number, fingerprint: string) => `${accountId}:${fingerprint}`;

function rememberWindow(accountId: number, fingerprint: string, billedAt: number): void {
  openWindows.set(windowKey(accountId, fingerprint), true, billedAt);
}

/**
 * True when this isolate already knows the account was billed for this request less than 30 days
 * before `now`. A caller's clock before the billing instant (tests pass `now`) is asked of D1 instead.
 */
export function knownRepeat(accountId: number, fingerprint: string, now: number): boolean {
  return openWindows.get(windowKey(accountId, fingerprint), now, REPEAT_WINDOW_MS) === true;
}

// D1 binds at most 100 parameters per statement: a lookup binds the account and the window besides
// its fingerprints, an insert three parameters per row.
const LOOKUP_CHUNK = 90;
const INSERT_CHUNK = 30;

/**
 * The fingerprints among `fingerprints` this account was billed for less than 30 days before
 * `now`, with the instant each was billed. A bulk chunk asks for all its rows in one query; a
 * single call asks for one.
 */
export async function billedAmong(env: Pick<Env, "DB">, accountId: number, fingerprints: readonly string[], now: number): Promise<Map<string, number>> {
  const unique = [...new Set(fingerprints)];
  const billed = new Map<string, number>();
  for (let i = 0; i < unique.length; i += LOOKUP_CHUNK) {
    const rows = await db(env.DB)
      .select({ fingerprint: billedRequests.fingerprint, billedAt: billedRequests.billedAt })
      .from(billedRequests)
      .where(and(eq(billedRequests.accountId, accountId), inArray(billedRequests.fingerprint, unique.slice(i, i + LOOKUP_CHUNK)), gt(billedRequests.billedAt, now - REPEAT_WINDOW_MS)))
      .all();
    for (const r of rows) {
      billed.set(r.fingerprint, r.billedAt);
      rememberWindow(accountId, r.fingerprint, r.billedAt);
    }
  }
  return billed;
}

/** True when this account was billed for the same request less than 30 days ago. */
export async function billedRecently(env: Pick<Env, "DB">, accountId: number, fingerprint: string, now: number): Promise<boolean> {
  if (knownRepeat(accountId, fingerprint, now)) return true;
  return (await billedAmong(env, accountId, [fingerprint], now)).has(fingerprint);
}

export interface Charges {
  accountId: number;
  fingerprints: readonly string[];
  capability: string;
  source: "api" | "bulk";
  now: number;
}

/** Opens the 30-day window of each billed request and counts them in the day's usage, in one batch. */
export async function recordCharges(env: Pick<Env, "DB">, charges: Charges): Promise<void> {
  const { accountId, fingerprints, capability, source, now } = charges;
  if (!fingerprints.length) return;
  const store = db(env.DB);
  const windows = [];
  for (let i = 0; i < fingerprints.length; i += INSERT_CHUNK) {
    windows.push(
      store
        .insert(billedRequests)
        .values(fingerprints.slice(i, i + INSERT_CHUNK).map((fingerprint) => ({ accountId, fingerprint, billedAt: now })))
        .onConflictDoUpdate({ target: [billedRequests.accountId, billedRequests.fingerprint], set: { billedAt: now } }),
    );
  }
  const usage = store
    .insert(usageDays)
    .values({ accountId, day: startOfUtcDay(now), capability, source, count: fingerprints.length })
    .onConflictDoUpdate({
      target: [usageDays.accountId, usageDays.day, usageDays.capability, usageDays.source],
      set: { count: sql`${usageDays.count} + ${fingerprints.length}` },
    });
  await store.batch([usage, ...windows]);
  // Only once D1 holds them: a window this isolate remembers is one every isolate would find.
  for (const fingerprint of fingerprints) rememberWindow(accountId, fingerprint, now);
}

/** One billed call: its 30-day window and its usage count. */
export function recordCharge(env: Pick<Env, "DB">, charge: Omit<Charges, "fingerprints"> & { fingerprint: string }): Promise<void> {
  const { fingerprint, ...rest } = charge;
  return recordCharges(env, { ...rest, fingerprints: [fingerprint] });
}

/** Drops windows that have closed (called by the scheduled retention job, never on a request). */
export async function pruneBilledRequests(env: Pick<Env, "DB">, now: number): Promise<void> {
  await db(env.DB).delete(billedRequests).where(lt(billedRequests.billedAt, now - REPEAT_WINDOW_MS)).run();
}
