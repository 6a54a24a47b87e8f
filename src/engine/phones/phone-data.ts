import type { Db } from "../../db/client.js";
import { indexFor, onEveryIndex } from "../../db/shards.js";
import type { Env } from "../../env.js";
import { Claimed } from "../errors.js";
import { claimedAmong, normaliseProfileUrl } from "../index/claims.js";
import { type PhoneFacts, phoneFacts } from "./numbers.js";

/**
 * Stored phone numbers for a person (email or profile URL) or a company (domain), best first, and
 * their PhoneData. Numbers come from the phones table (crawled pages, imports) and the people and
 * companies rows; claimed numbers are never served.
 */
export interface PhoneKey {
  email?: string | null;
  domain?: string | null;
  /** Profile URL on the professional network. */
  url?: string | null;
}

export type PhoneData = PhoneFacts & {
  email?: string;
  domain?: string;
  linkedin?: string;
  professional_network?: string;
};

/** Candidate E.164 numbers, best first: the most recently seen stored number leads. */
export async function storedNumbers(env: Env, key: PhoneKey): Promise<string[]> {
  const found: string[] = [];
  const add = (rows: { e164: string | null }[]) => {
    for (const r of rows) if (r.e164 && !found.includes(r.e164)) found.push(r.e164);
  };
  const rowsOf = async (index: Db, query: string, value: string) =>
    (await index.$client.prepare(query).bind(value).all<{ e164: string; seen: number | null; id: number | null }>())
      .results;
  if (key.email) {
    const index = await indexFor(env, key.email);
    add(await rowsOf(index, "SELECT e164 FROM phones WHERE email = ? ORDER BY last_seen_at DESC, id", key.email));
    add(await rowsOf(index, "SELECT phone AS e164 FROM people WHERE email = ? AND phone IS NOT NULL", key.email));
  }
  if (key.url) {
    const profile = normaliseProfileUrl(key.url);
    if (profile) {
      // A profile names no domain: every index database is asked, and the numbers merged newest first.
      const [numbers, own] = await Promise.all([
        onEveryIndex(env, (index) =>
          rowsOf(
            index,
            `SELECT e164, last_seen_at AS seen, id FROM phones WHERE professional_network_url = ?1
               OR email IN (SELECT email FROM people WHERE professional_network_url = ?1 AND email IS NOT NULL)
             ORDER BY last_seen_at DESC, id`,
            profile,
          ),
        ),
        onEveryIndex(env, (index) =>
          rowsOf(
            index,
            "SELECT phone AS e164 FROM people WHERE professional_network_url = ? AND phone IS NOT NULL",
            profile,
          ),
        ),
      ]);
      add(numbers.flat().sort((x, y) => (y.seen ?? 0) - (x.seen ?? 0) || (x.id ?? 0) - (y.id ?? 0)));
      add(own.flat());
    }
  }
  if (key.domain) {
    // A domain asks for the company's numbers; people's own numbers are only served by their email or profile.
    const index = await indexFor(env, key.domain);
    add(await rowsOf(index, "SELECT phone AS e164 FROM companies WHERE domain = ? AND phone IS NOT NULL", key.domain));
    add(
      await rowsOf(
        index,
        "SELECT e164 FROM phones WHERE domain = ? AND email IS NULL ORDER BY last_seen_at DESC, id",
        key.domain,
      ),
    );
  }
  return found;
}

/** The unclaimed numbers; 451 claimed_phone when every stored number was claimed. */
export async function servableNumbers(env: Env, key: PhoneKey): Promise<string[]> {
  const numbers = await storedNumbers(env, key);
  if (numbers.length === 0) return [];
  const claimed = await claimedAmong(env, "phone", numbers);
  const open = numbers.filter((n) => !claimed.has(n));
  if (open.length === 0)
    throw new Claimed("phone", "This phone number was removed at its owner's request and cannot be served.");
  return open;
}

function echo(key: PhoneKey): Partial<PhoneData> {
  if (key.email) return { email: key.email };
  if (key.url) return { linkedin: key.url, professional_network: key.url };
  return { domain: key.domain ?? undefined };
}

export function phoneDataOf(e164: string, key: PhoneKey): PhoneData {
  return { ...echo(key), ...phoneFacts(e164) };
}

/**
 * `data.phone_data` for enrich_mobile on the email finder, enrichment and profile finder: the best
 * stored, unclaimed number of the person (by email or profile URL; `domain` is accepted for the
 * callers' convenience but company numbers are not a person's), or null when there is none (then
 * no phone credit is used). With `strict` (profile finder), a person whose every number was claimed
 * gets 451 claimed_phone instead of a silent null.
 */
export async function phoneDataFor(
  env: Env,
  key: PhoneKey,
  opts: { strict?: boolean } = {},
): Promise<PhoneData | null> {
  const personKey = { email: key.email, url: key.url };
  if (opts.strict) {
    const [best] = await servableNumbers(env, personKey);
    return best ? phoneDataOf(best, key.email ? { email: key.email } : { url: key.url }) : null;
  }
  const numbers = await storedNumbers(env, personKey);
  if (numbers.length === 0) return null;
  const claimed = await claimedAmong(env, "phone", numbers);
  const best = numbers.find((n) => !claimed.has(n));
  return best ? phoneDataOf(best, key.email ? { email: key.email } : { url: key.url }) : null;
}

/** The extra cost a found phone_data uses, for CapabilityResult.extraCost. */
export const phoneExtraCost = (data: PhoneData | null) => (data ? { phone: 1 } : {});
