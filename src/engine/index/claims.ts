import { and, eq } from "drizzle-orm";
import { type CountryCode, parsePhoneNumberFromString } from "libphonenumber-js/max";
import { db } from "../../db/client.js";
import { claims } from "../../db/schema-index.js";
import type { Env } from "../../env.js";
import { Claimed } from "../errors.js";
import type { Memo } from "../memo.js";
import {
  cachedClaim,
  cachedKind,
  claimsCacheTtl,
  claimsGeneration,
  forgetClaim,
  MAX_KIND_SNAPSHOT,
  rememberClaim,
  rememberKind,
} from "./claims-cache.js";
import { inJsonArray, jsonArrayChunks } from "./in-json-array.js";

/**
 * Removal requests. A claim is stored in normalised form so that every spelling of the same
 * address, number or profile (case, formatting, tracking parameters) matches the one row.
 */
export type ClaimKind = "email" | "phone" | "linkedin";
export const CLAIM_KINDS: readonly ClaimKind[] = ["email", "phone", "linkedin"];

const WHAT: Record<ClaimKind, string> = {
  email: "This email address",
  phone: "This phone number",
  linkedin: "This profile",
};

export function isClaimKind(value: unknown): value is ClaimKind {
  return typeof value === "string" && (CLAIM_KINDS as readonly string[]).includes(value);
}

/** Lowercase address with an ASCII (punycode) domain; null when it is not shaped like an address. */
export function normaliseEmail(value: string): string | null {
  const trimmed = value.trim().normalize("NFC").toLowerCase();
  const at = trimmed.lastIndexOf("@");
  if (at < 1 || at === trimmed.length - 1 || /\s/.test(trimmed)) return null;
  const domain = asciiDomain(trimmed.slice(at + 1));
  return domain ? `${trimmed.slice(0, at)}@${domain}` : null;
}

function asciiDomain(domain: string): string | null {
  const bare = domain.replace(/\.$/, "");
  if (/^[a-z0-9.-]+$/.test(bare)) return bare;
  try {
    // The URL parser applies IDNA (UTS #46), which is what mail systems use for IDN domains.
    return new URL(`http://${bare}/`).hostname || null;
  } catch {
    return null;
  }
}

/** E.164; a number without a leading + needs `defaultCountry`. Null when it is not a valid number. */
export function normalisePhone(value: string, defaultCountry?: CountryCode): string | null {
  const parsed = parsePhoneNumberFromString(value.trim(), defaultCountry);
  return parsed?.isValid() ? parsed.number : null;
}

const PROFILE_HOST = /^([a-z]{2,3}\.|www\.|m\.)?linkedin\.com$/;
const BARE_HANDLE = /^[\p{L}\p{N}_-]{3,100}$/u;

/**
 * Canonical profile URL `https://www.linkedin.com/in/<handle>` (lowercase, decoded, no query,
 * no trailing slash, country subdomains folded). Accepts a bare handle too. Null otherwise.
 */
export function normaliseProfileUrl(value: string): string | null {
  const raw = value.trim();
  if (BARE_HANDLE.test(raw)) return `https://www.linkedin.com/in/${raw.toLowerCase()}`;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    return null;
  }
  if (!PROFILE_HOST.test(url.hostname.toLowerCase())) return null;
  const segments = url.pathname.split("/").filter(Boolean);
  const [section, ...rest] = segments;
  if ((section !== "in" && section !== "pub") || rest.length === 0) return null;
  // /in/<handle>/details/... and /in/<handle>/en/ are views of the same profile.
  const kept = section === "in" ? rest.slice(0, 1) : rest;
  let decoded: string[];
  try {
    decoded = kept.map((s) => decodeURIComponent(s).toLowerCase());
  } catch {
    return null;
  }
  return `https://www.linkedin.com/${section}/${decoded.join("/")}`;
}

export function normaliseClaimValue(kind: ClaimKind, value: string): string | null {
  if (kind === "email") return normaliseEmail(value);
  if (kind === "phone") return normalisePhone(value);
  return normaliseProfileUrl(value);
}

const cacheKeyOf = (kind: ClaimKind, normalised: string) => `${kind}:${normalised}`;

/**
 * Throws 451 `claimed_<kind>` when the owner asked for this value to be removed. The answer may
 * come from this isolate's claims cache (claims-cache.ts: at most CLAIMS_CACHE_TTL_MS old).
 */
export async function assertNotClaimed(
  env: Pick<Env, "DB" | "CLAIMS_CACHE_TTL_MS">,
  kind: ClaimKind,
  value: string,
  now = Date.now(),
): Promise<void> {
  const normalised = normaliseClaimValue(kind, value);
  if (!normalised) return; // an unnormalisable value cannot match a stored claim
  await assertNormalisedNotClaimed(env, kind, normalised, now);
}

/**
 * assertNotClaimed for a value already in its normalised form (normaliseClaimValue's output, e.g.
 * the E.164 of a number the caller parsed and validated): a phone number is not parsed twice.
 */
export async function assertNormalisedNotClaimed(
  env: Pick<Env, "DB" | "CLAIMS_CACHE_TTL_MS">,
  kind: ClaimKind,
  normalised: string,
  now = Date.now(),
): Promise<void> {
  const key = cacheKeyOf(kind, normalised);
  const ttl = claimsCacheTtl(env.CLAIMS_CACHE_TTL_MS);
  let claimed = cachedClaim(key, now, ttl);
  const all =
    claimed === undefined && ttl > 0 ? (cachedKind(kind, now, ttl) ?? (await readKind(env, kind, now, ttl))) : null;
  if (all) claimed = all.has(normalised);
  if (claimed === undefined) {
    const row = await db(env.DB)
      .select({ value: claims.value })
      .from(claims)
      .where(and(eq(claims.kind, kind), eq(claims.value, normalised)))
      .get();
    claimed = row !== undefined;
    rememberClaim(key, claimed, now, ttl);
  }
  if (claimed) {
    throw new Claimed(kind, `${WHAT[kind]} was removed at its owner's request and cannot be served.`);
  }
}

/** Every claim of `kind` (null when there are more than this isolate holds), remembered for `ttl`. */
async function readKind(
  env: Pick<Env, "DB">,
  kind: ClaimKind,
  now: number,
  ttl: number,
): Promise<ReadonlySet<string> | null> {
  const generation = claimsGeneration();
  const rows = await db(env.DB)
    .select({ value: claims.value })
    .from(claims)
    .where(eq(claims.kind, kind))
    .limit(MAX_KIND_SNAPSHOT + 1)
    .all();
  const all = rows.length > MAX_KIND_SNAPSHOT ? null : new Set(rows.map((r) => r.value));
  rememberKind(kind, all, now, ttl, generation);
  return all;
}

/**
 * The normalised values among `values` that are claimed. One statement per 5,000 values (a
 * domain search of a large domain asks for thousands): the values travel as JSON array parameters
 * (in-json-array.ts), and each is looked up by the primary key.
 */
export async function claimedAmong(
  env: Pick<Env, "DB">,
  kind: ClaimKind,
  values: readonly string[],
): Promise<Set<string>> {
  const normalised = [...new Set(values.map((v) => normaliseClaimValue(kind, v)).filter((v): v is string => !!v))];
  const found = new Set<string>();
  for (const chunk of jsonArrayChunks(normalised)) {
    const rows = await db(env.DB)
      .select({ value: claims.value })
      .from(claims)
      .where(and(eq(claims.kind, kind), inJsonArray(claims.value, chunk)))
      .all();
    for (const r of rows) found.add(r.value);
  }
  return found;
}

/** `values` without the claimed ones, in their original order and spelling (domain search omits claimed addresses). */
export async function filterClaimed(
  env: Pick<Env, "DB">,
  kind: ClaimKind,
  values: readonly string[],
): Promise<string[]> {
  if (values.length === 0) return [];
  const claimed = await claimedAmong(env, kind, values);
  if (claimed.size === 0) return [...values];
  return values.filter((v) => {
    const n = normaliseClaimValue(kind, v);
    return !n || !claimed.has(n);
  });
}

export interface ClaimRecord {
  kind: ClaimKind;
  value: string;
  reason: string | null;
  createdAt: number;
}

/** Records a claim (idempotent: a repeated claim keeps its first date and updates the reason). */
export async function addClaim(
  env: Pick<Env, "DB">,
  kind: ClaimKind,
  normalisedValue: string,
  reason: string | null,
): Promise<ClaimRecord> {
  const row = await db(env.DB)
    .insert(claims)
    .values({ kind, value: normalisedValue, reason, createdAt: Date.now() })
    .onConflictDoUpdate({ target: [claims.kind, claims.value], set: { reason } })
    .returning()
    .get();
  // After the write, so a lookup that read D1 just before it cannot leave a stale "not claimed".
  forgetClaim(cacheKeyOf(kind, normalisedValue));
  return { kind, value: row.value, reason: row.reason, createdAt: row.createdAt };
}

export async function listClaims(env: Pick<Env, "DB">, kind?: ClaimKind): Promise<ClaimRecord[]> {
  const q = db(env.DB).select().from(claims);
  const rows = await (kind ? q.where(eq(claims.kind, kind)) : q).orderBy(claims.createdAt).all();
  return rows.map((r) => ({ kind: r.kind as ClaimKind, value: r.value, reason: r.reason, createdAt: r.createdAt }));
}

/** True when a claim was removed. */
export async function removeClaim(env: Pick<Env, "DB">, kind: ClaimKind, normalisedValue: string): Promise<boolean> {
  const rows = await db(env.DB)
    .delete(claims)
    .where(and(eq(claims.kind, kind), eq(claims.value, normalisedValue)))
    .returning({ value: claims.value })
    .all();
  forgetClaim(cacheKeyOf(kind, normalisedValue));
  return rows.length > 0;
}

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
