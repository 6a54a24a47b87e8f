import { lt } from "drizzle-orm";
import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from "libphonenumber-js/max";
import { db } from "../db/client.js";
import { billedRequests } from "../db/schema-contract.js";
import { normaliseEmail } from "../engine/index/claims.js";
import type { Env } from "../env.js";
import { sha256Hex } from "../platform/crypto.js";
import { REPEAT_WINDOW_MS } from "./repeat-windows.js";

export { REPEAT_WINDOW_MS } from "./repeat-windows.js";

/**
 * Credits rule (docs/wire-contract.md §3.2): an identical request (same capability, same normalised parameters,
 * same account) is billed once per 30 days. The windows live in the account's AccountLimiter
 * (src/limits/repeat-windows.ts), which decides "repeat or billed" in the admission itself, so two
 * identical requests racing each other are billed once. This module says what "identical" means
 * (the fingerprint); the windows an isolate knows to be open are its LimiterClient's
 * (limiter-client.ts).
 */

/** Parameters that do not change the answer are left out of the fingerprint. */
const IGNORED = new Set(["webhook_url"]);
/** Values compared without case (addresses, domains, names); URLs and the rest keep theirs. */
const CASELESS = new Set([
  "email",
  "domain",
  "company",
  "first_name",
  "last_name",
  "full_name",
  "type",
  "department",
  "country",
]);

/** Parameters holding a country for a national phone number: an E.164 number already carries it. */
const PHONE_COUNTRY = ["country_code", "country"];

/** Already written as E.164 (`+` and 7 to 15 digits): parsing could only give the same text back, or call it invalid. */
const E164_SHAPE = /^\+[1-9]\d{6,14}$/;

/** `+1 415 555 0100` and `(415) 555-0100` with country US: the E.164 form, and whether it settles the country. */
function e164(phone: string, params: Record<string, unknown>): { number: string; ownCountry: boolean } | null {
  const given = PHONE_COUNTRY.map((k) => params[k]).find((v): v is string => typeof v === "string" && v.trim() !== "");
  // The usual spelling skips the parse (the capability parses the number again anyway): an invalid
  // number kept as written is as distinct as it would be unparsed.
  if (given === undefined && E164_SHAPE.test(phone)) return { number: phone, ownCountry: true };
  const country = given?.trim().toUpperCase();
  const parsed = parsePhoneNumberFromString(
    phone.trim(),
    country && isSupportedCountry(country) ? (country as CountryCode) : undefined,
  );
  return parsed?.isValid() ? { number: parsed.number, ownCountry: parsed.country !== undefined } : null;
}

/** A domain as every capability reads it: no case, no `www.`, no trailing dot. */
function normalisedDomain(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/\.+$/, "")
    .replace(/^www\./, "");
}

/**
 * The normalised parameters as one canonical string: sorted keys, trimmed, empty values dropped;
 * phone numbers in E.164 (their country parameter dropped when the number settles it), addresses
 * lower-cased with an ASCII domain, domains without case, `www.` or trailing dot.
 */
export function normalisedParams(params: Record<string, unknown>): string {
  const phone = typeof params.phone === "string" ? e164(params.phone, params) : null;
  const entries: [string, unknown][] = [];
  for (const key of Object.keys(params).sort()) {
    if (IGNORED.has(key)) continue;
    if (phone?.ownCountry && PHONE_COUNTRY.includes(key)) continue;
    let value = params[key];
    if (value === undefined || value === null || value === "" || value === false) continue;
    if (typeof value === "string") {
      if (key === "phone" && phone) value = phone.number;
      else if (key === "email") value = normaliseEmail(value) ?? value.trim().toLowerCase();
      else if (key === "domain") value = normalisedDomain(value);
      else value = CASELESS.has(key) ? value.trim().toLowerCase() : value.trim();
    }
    entries.push([key, value]);
  }
  return JSON.stringify(entries);
}

export async function requestFingerprint(capability: string, params: Record<string, unknown>): Promise<string> {
  return sha256Hex(`${capability}\n${normalisedParams(params)}`);
}

/** Drops closed windows from the D1 copy (called by the scheduled retention job, never on a request). */
export async function pruneBilledRequests(env: Pick<Env, "DB">, now: number): Promise<void> {
  await db(env.DB)
    .delete(billedRequests)
    .where(lt(billedRequests.billedAt, now - REPEAT_WINDOW_MS))
    .run();
}
