import { and, desc, eq, sql } from "drizzle-orm";
import { parse as parseHost } from "tldts";
import type { Db } from "../../db/client.js";
import { companies, domains, emailSources, emails, people } from "../../db/schema-index.js";
import { type IndexEnv, indexFor, onEveryIndex } from "../../db/shards.js";
import { rfc3339 } from "../../platform/time.js";
import { InvalidInput } from "../errors.js";
import { normaliseEmail } from "./claims.js";

/**
 * Reads of the contact index for enrichment: one person (people row and/or emails row merged) and
 * one company (their wire shapes: src/capabilities/shapes/person.ts). Nothing is filled in that
 * the index does not hold: a missing fact is null.
 */

export type CompanyRecord = typeof companies.$inferSelect;

export interface PersonRecord {
  email: string | null;
  domain: string;
  firstName: string | null;
  lastName: string | null;
  fullName: string | null;
  position: string | null;
  department: string | null;
  seniority: string | null;
  country: string | null;
  gender: string | null;
  professionalNetworkUrl: string | null;
  microblog: string | null;
  /** personal | generic; null when only a people row (no address) is known. */
  type: string | null;
  /** Where the address came from: crawl | import. */
  source: string;
  hasPhone: boolean;
}

/** A `domain` query value as a bare host: scheme, www., path and port dropped; 400 when it is not a domain. */
export function domainParam(value: string, name = "domain"): string {
  const raw = value.trim().toLowerCase();
  const host = raw
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, "")
    .replace(/[/?#].*$/s, "")
    .replace(/:\d+$/, "")
    .replace(/\.$/, "")
    .replace(/^www\./, "");
  const info = parseHost(host);
  if (!host || !info.domain || info.isIp || !/^[a-z0-9.-]+$/.test(host)) {
    throw new InvalidInput(name, `The parameter '${name}' is invalid: "${value.slice(0, 100)}" is not a domain name.`);
  }
  return host;
}

/** An `email` query value, normalised; 400 when it is not an address. */
export function emailParam(value: string, name = "email"): string {
  const email = normaliseEmail(value);
  if (!email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
    throw new InvalidInput(
      name,
      `The parameter '${name}' is invalid: "${value.slice(0, 100)}" is not an email address.`,
    );
  }
  return email;
}

const peopleColumns = {
  email: people.email,
  domain: people.domain,
  firstName: people.firstName,
  lastName: people.lastName,
  fullName: people.fullName,
  position: people.position,
  department: people.department,
  seniority: people.seniority,
  country: people.country,
  gender: people.gender,
  professionalNetworkUrl: people.professionalNetworkUrl,
  microblog: people.microblog,
  phone: people.phone,
  source: people.source,
};

type PeopleRow = Pick<typeof people.$inferSelect, keyof typeof peopleColumns>;

async function hasPhoneFor(index: Db, email: string | null, profile: string | null): Promise<boolean> {
  const row = await index.$client
    .prepare(
      "SELECT 1 AS x FROM phones WHERE (email IS NOT NULL AND email = ?1) OR (professional_network_url IS NOT NULL AND professional_network_url = ?2) LIMIT 1",
    )
    .bind(email, profile)
    .first();
  return row !== null;
}

function merge(
  p: PeopleRow | undefined,
  e: typeof emails.$inferSelect | undefined,
  hasPhone: boolean,
): PersonRecord | null {
  const domain = p?.domain ?? e?.domain;
  if (domain === undefined) return null;
  const fullName = p?.fullName ?? (e?.firstName && e?.lastName ? `${e.firstName} ${e.lastName}` : null);
  return {
    email: p?.email ?? e?.email ?? null,
    domain,
    firstName: p?.firstName ?? e?.firstName ?? null,
    lastName: p?.lastName ?? e?.lastName ?? null,
    fullName,
    position: p?.position ?? e?.position ?? null,
    department: p?.department ?? e?.department ?? null,
    seniority: p?.seniority ?? e?.seniority ?? null,
    country: p?.country ?? null,
    gender: p?.gender ?? null,
    professionalNetworkUrl: p?.professionalNetworkUrl ?? null,
    microblog: p?.microblog ?? null,
    type: e?.type ?? (p?.email ? "personal" : null),
    source: e?.source ?? p?.source ?? "crawl",
    hasPhone: hasPhone || !!p?.phone,
  };
}

export async function personByEmail(env: IndexEnv, email: string): Promise<PersonRecord | null> {
  const store = await indexFor(env, email);
  // One round trip of three reads: the phone check finds the person's profile by subquery.
  const [p, e, phone] = await Promise.all([
    store.select(peopleColumns).from(people).where(eq(people.email, email)).get(),
    store.select().from(emails).where(eq(emails.email, email)).get(),
    store.$client
      .prepare(
        `SELECT 1 AS x FROM phones WHERE email = ?1 OR professional_network_url =
         (SELECT professional_network_url FROM people WHERE email = ?1 AND professional_network_url IS NOT NULL) LIMIT 1`,
      )
      .bind(email)
      .first(),
  ]);
  if (!p && !e) return null;
  return merge(p as PeopleRow | undefined, e, phone !== null);
}

/**
 * Everyone stored under a profile URL (normalised by the caller), addressed people first. A
 * profile names no domain: every index database is asked in parallel; each person is completed
 * from the database that holds them, and the lists are merged in the order one database gives.
 */
export async function peopleByProfile(env: IndexEnv, profileUrl: string): Promise<PersonRecord[]> {
  const perIndex = await onEveryIndex(env, async (store) => {
    const rows = await store
      .select({ ...peopleColumns, updatedAt: people.updatedAt })
      .from(people)
      .where(eq(people.professionalNetworkUrl, profileUrl))
      .orderBy(sql`${people.email} IS NULL`, desc(people.updatedAt))
      .all();
    const found: { person: PersonRecord; updatedAt: number }[] = [];
    for (const p of rows) {
      const e = p.email ? await store.select().from(emails).where(eq(emails.email, p.email)).get() : undefined;
      const person = merge(p as PeopleRow, e, await hasPhoneFor(store, p.email, profileUrl));
      if (person) found.push({ person, updatedAt: p.updatedAt });
    }
    return found;
  });
  return perIndex
    .flat()
    .sort(
      (a, b) =>
        Number(a.person.email === null) - Number(b.person.email === null) ||
        b.updatedAt - a.updatedAt ||
        a.person.domain.localeCompare(b.person.domain),
    )
    .map((f) => f.person);
}

const SENIORITY_RANK = sql`CASE ${people.seniority} WHEN 'executive' THEN 0 WHEN 'senior' THEN 1 WHEN 'junior' THEN 2 ELSE 3 END`;

/**
 * Addresses of the people `people/find` can answer for a bare domain, best first: the most senior
 * person with an address, then the one whose record says the most (position known), then the
 * longest-known; crawled personal addresses with a name follow. Deterministic, so the same
 * question gets the same answer.
 */
export async function leadCandidatesOfDomain(env: IndexEnv, domain: string, limit = 20): Promise<string[]> {
  const index = await indexFor(env, domain);
  const fromPeople = await index
    .select({ email: people.email })
    .from(people)
    .where(and(eq(people.domain, domain), sql`${people.email} IS NOT NULL`))
    .orderBy(SENIORITY_RANK, sql`${people.position} IS NULL`, people.id)
    .limit(limit)
    .all();
  const fromEmails = await index
    .select({ email: emails.email })
    .from(emails)
    .where(and(eq(emails.domain, domain), eq(emails.type, "personal"), sql`${emails.firstName} IS NOT NULL`))
    .orderBy(emails.firstSeenAt)
    .limit(limit)
    .all();
  // Both queries select only rows with an address.
  return [...new Set([...fromPeople, ...fromEmails].flatMap((r) => (r.email === null ? [] : [r.email])))].slice(
    0,
    limit,
  );
}

export async function companyByDomain(env: IndexEnv, domain: string): Promise<CompanyRecord | null> {
  return (
    (await (await indexFor(env, domain)).select().from(companies).where(eq(companies.domain, domain)).get()) ?? null
  );
}

export async function sourcesOf(env: IndexEnv, email: string) {
  const rows = await (await indexFor(env, email))
    .select()
    .from(emailSources)
    .where(eq(emailSources.email, email))
    .orderBy(desc(emailSources.lastSeenOn))
    .limit(20)
    .all();
  return rows.map((s) => ({
    uri: s.uri,
    website_url: s.websiteUrl,
    extracted_on: rfc3339(s.extractedOn),
    last_seen_on: rfc3339(s.lastSeenOn),
    still_on_page: s.stillOnPage,
  }));
}

export async function acceptAllOf(env: IndexEnv, domain: string): Promise<boolean | null> {
  const row = await (await indexFor(env, domain))
    .select({ acceptAll: domains.acceptAll })
    .from(domains)
    .where(eq(domains.domain, domain))
    .get();
  return row?.acceptAll ?? null;
}

/**
 * Confidence that a stored address is real and current, from evidence only: an address the
 * operator imported is taken at their word (80); a crawled one starts at 50 and gains 15 per page
 * that still shows it (up to three pages), so an address seen on several live pages scores 95
 * and one that vanished from every page stays at 50.
 */
export function evidenceScore(source: string, sources: { still_on_page: boolean }[]): number {
  const live = sources.filter((s) => s.still_on_page).length;
  if (source === "import") return Math.min(100, 80 + 5 * Math.min(live, 4));
  return 50 + 15 * Math.min(live, 3);
}

/**
 * What the finder knows of an address, for a lead saved with it: the company website (the
 * address's domain, as FinderData's `website_url` gives it) and the evidence score the finder
 * reports for it. Null when the index has never seen the address.
 */
export async function finderFactsOf(env: IndexEnv, email: string): Promise<{ website: string; score: number } | null> {
  const person = await personByEmail(env, email);
  if (!person?.email) return null;
  return { website: person.domain, score: evidenceScore(person.source, await sourcesOf(env, email)) };
}

const splitList = (v: string | null): string[] => {
  if (!v) return [];
  try {
    const parsed = JSON.parse(v);
    return Array.isArray(parsed) ? parsed.filter((x) => typeof x === "string") : [];
  } catch {
    return [];
  }
};

export { splitList as jsonList };
