import { and, eq, gt, inArray, sql } from "drizzle-orm";
import { db } from "../db/client.js";
import { billedRequests, usageDays } from "../db/schema-contract.js";
import type { Env } from "../env.js";
import { startOfUtcDay } from "../http/time.js";
import { REPEAT_WINDOW_MS } from "./repeat-billing.js";

/**
 * The 30-day repeat-billing rule (repeat-billing.ts) for many calls at once: a bulk chunk asks
 * which of its fingerprints were billed with one query, and records its charges with one batch,
 * instead of one round trip of each per row.
 */

// D1 binds at most 100 parameters per statement: two are the account and the window.
const LOOKUP_CHUNK = 90;
// Three parameters per inserted row.
const INSERT_CHUNK = 30;

/** The fingerprints among `fingerprints` this account was billed for less than 30 days ago. */
export async function billedAmong(env: Pick<Env, "DB">, accountId: number, fingerprints: readonly string[], now: number): Promise<Set<string>> {
  const unique = [...new Set(fingerprints)];
  const billed = new Set<string>();
  for (let i = 0; i < unique.length; i += LOOKUP_CHUNK) {
    const rows = await db(env.DB)
      .select({ fingerprint: billedRequests.fingerprint })
      .from(billedRequests)
      .where(and(eq(billedRequests.accountId, accountId), inArray(billedRequests.fingerprint, unique.slice(i, i + LOOKUP_CHUNK)), gt(billedRequests.billedAt, now - REPEAT_WINDOW_MS)))
      .all();
    for (const r of rows) billed.add(r.fingerprint);
  }
  return billed;
}

/** Opens the 30-day window of each billed fingerprint and adds them to the day's usage, in one batch. */
export async function recordCharges(
  env: Pick<Env, "DB">,
  charges: { accountId: number; fingerprints: readonly string[]; capability: string; source: "api" | "bulk"; now: number },
): Promise<void> {
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
  await store.batch([
    store
      .insert(usageDays)
      .values({ accountId, day: startOfUtcDay(now), capability, source, count: fingerprints.length })
      .onConflictDoUpdate({
        target: [usageDays.accountId, usageDays.day, usageDays.capability, usageDays.source],
        set: { count: sql`${usageDays.count} + ${fingerprints.length}` },
      }),
    ...windows,
  ]);
}
