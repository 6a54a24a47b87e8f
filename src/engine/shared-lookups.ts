import type { Env } from "../env.js";
import { assertNotClaimed, claimedAmong, normaliseClaimValue } from "./index/claims.js";
import type { Memo } from "./memo.js";

/**
 * The claim check of an address through a memo: rows of a bulk batch ask together (one query for
 * the addresses asked in the same turn) and an address asked twice (finder, then its verification)
 * is looked up once. Throws the same 451 as assertNotClaimed.
 */
export async function assertEmailNotClaimed(env: Pick<Env, "DB">, memo: Memo, email: string): Promise<void> {
  const key = normaliseClaimValue("email", email);
  if (!key) return;
  const claimed = await memo.together("claims:email", key, async (keys) => {
    const found = await claimedAmong(env, "email", keys);
    return new Map(keys.map((k) => [k, found.has(k)]));
  });
  // The one claimed address asks again, so the refusal is the canonical one.
  if (claimed) await assertNotClaimed(env, "email", email);
}
