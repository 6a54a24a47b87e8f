import { and, eq, gte, lt, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { companies, domains, emailSources, emails, people } from "../../db/schema-index.js";
import { groupByIndex, type IndexEnv, indexFor, onEveryIndex } from "../../db/shards.js";
import { asciiFold } from "../../platform/ascii-fold.js";
import { rfc3339 } from "../../platform/time.js";
import { NotFound } from "../errors.js";
import { inferPatterns, type NamedAddress, type PatternInference } from "../finder/patterns.js";
import { parseStoredFormats } from "./domain-names.js";
import { inJsonArray, jsonArrayChunks } from "./in-json-array.js";

export type EmailRow = typeof emails.$inferSelect;
export type CompanyRow = typeof companies.$inferSelect;

/** Contract `Source` object. */
export interface SourceOut {
  uri: string;
  website_url: string;
  extracted_on: string | null;
  last_seen_on: string | null;
  still_on_page: boolean;
}

export async function emailsOfDomain(env: IndexEnv, domain: string): Promise<EmailRow[]> {
  return (await indexFor(env, domain))
    .select()
    .from(emails)
    .where(eq(emails.domain, domain))
    .orderBy(emails.email)
    .all();
}

export async function emailRow(env: IndexEnv, email: string): Promise<EmailRow | undefined> {
  return (await indexFor(env, email)).select().from(emails).where(eq(emails.email, email)).get();
}

/** Sources of each address, most recently seen first (one statement per 5,000 addresses). */
export async function sourcesOf(env: IndexEnv, addresses: readonly string[]): Promise<Map<string, SourceOut[]>> {
  const out = new Map<string, SourceOut[]>();
  if (addresses.length === 0) return out;
  const rows = [];
  for (const [index, group] of await groupByIndex(env, [...new Set(addresses)]))
    for (const chunk of jsonArrayChunks(group)) {
      rows.push(
        ...(await index
          .select()
          .from(emailSources)
          .where(inJsonArray(emailSources.email, chunk))
          .orderBy(sql`${emailSources.lastSeenOn} desc`)
          .all()),
      );
    }
  for (const r of rows) {
    const list = out.get(r.email) ?? [];
    list.push(sourceOut(r));
    out.set(r.email, list);
  }
  return out;
}

/** A stored source row in its wire shape. */
export function sourceOut(r: typeof emailSources.$inferSelect): SourceOut {
  return {
    uri: r.uri,
    website_url: r.websiteUrl,
    extracted_on: rfc3339(r.extractedOn),
    last_seen_on: rfc3339(r.lastSeenOn),
    still_on_page: r.stillOnPage,
  };
}

/**
 * How many pages still show each address (addresses without a source are absent): what a listing
 * score needs, counted in SQL rather than every source row of a large domain carried back.
 */
export async function liveSourceCounts(env: IndexEnv, addresses: readonly string[]): Promise<Map<string, number>> {
  const live = new Map<string, number>();
  for (const [index, group] of await groupByIndex(env, [...new Set(addresses)]))
    for (const chunk of jsonArrayChunks(group)) {
      const rows = await index
        .select({ email: emailSources.email, live: sql<number>`sum(${emailSources.stillOnPage})` })
        .from(emailSources)
        .where(inJsonArray(emailSources.email, chunk))
        .groupBy(emailSources.email)
        .all();
      for (const r of rows) live.set(r.email, Number(r.live));
    }
  return live;
}

/**
 * Names the domain's pages show without an address (people rows of the crawl with no email),
 * as displayed: what a finder query leaves out (a middle name) may be read from them.
 */
export async function shownNamesOf(store: Db, domain: string): Promise<{ fullName: string | null }[]> {
  return store
    .select({ fullName: people.fullName })
    .from(people)
    .where(and(eq(people.domain, domain), sql`${people.email} is null`, eq(people.source, "crawl")))
    .limit(500)
    .all();
}

/** Countries of named people by address (domain search's `country` filter). */
export async function countriesOf(env: IndexEnv, domain: string): Promise<Map<string, string>> {
  const rows = await (await indexFor(env, domain))
    .select({ email: people.email, country: people.country })
    .from(people)
    .where(and(eq(people.domain, domain), sql`${people.country} is not null`))
    .all();
  return new Map(rows.flatMap((r) => (r.email && r.country ? [[r.email, r.country] as const] : [])));
}

/** The domain's addresses that carry a person's name: the evidence for its address formats. */
export function namedAddresses(rows: readonly EmailRow[]): NamedAddress[] {
  return rows.flatMap((r) =>
    r.type === "personal" && r.firstName && r.lastName
      ? [
          {
            localPart: r.localPart,
            name: { first: r.firstName, last: r.lastName, ...(r.middleName ? { middle: r.middleName } : {}) },
          },
        ]
      : [],
  );
}

/**
 * The domain's address formats: as read with its people's names when it was last crawled
 * (`domains.formats`), else inferred from the named rows (rows written by other means).
 */
export function formatsOf(domain: { formats: string | null } | undefined, rows: readonly EmailRow[]): PatternInference {
  return parseStoredFormats(domain?.formats) ?? inferPatterns(namedAddresses(rows));
}

export async function companyOf(env: IndexEnv, domain: string): Promise<CompanyRow | undefined> {
  return (await indexFor(env, domain)).select().from(companies).where(eq(companies.domain, domain)).get();
}

export async function domainRow(env: IndexEnv, domain: string) {
  return (await indexFor(env, domain)).select().from(domains).where(eq(domains.domain, domain)).get();
}

const LEGAL_FORMS =
  /\b(inc|incorporated|llc|ltd|limited|gmbh|ag|corp|corporation|co|company|sa|sas|sarl|bv|nv|plc|kg|ohg|ug|oy|ab|as|spa|srl|pty)\b\.?/g;

/** "Acme Widgets, Inc." and "acme widgets" compare equal. */
export function companyKey(name: string): string {
  return asciiFold(name, { compatibility: true })
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(LEGAL_FORMS, " ")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/**
 * The domain of a company named `name`, from the companies the index knows (exact name first,
 * then the same name without legal form). 422 when none matches; the caller should pass a domain.
 */
export async function domainForCompany(env: IndexEnv, name: string): Promise<string> {
  const key = companyKey(name);
  if (!key) throw new NotFound("company", `The company name "${name}" has no letters or digits to search for.`);
  const firstWord = key.replace(/ .*$/s, "");
  // Candidates: the name itself, and names starting with the key's first word ("Acme" finds "Acme
  // Widgets, Inc."), both ranges of the index on lower(name). firstWord is [a-z0-9]+, so the range
  // ends at the same word with its last character moved up by one.
  const lowerName = sql`lower(${companies.name})`;
  const wordEnd = firstWord.slice(0, -1) + String.fromCharCode(firstWord.charCodeAt(firstWord.length - 1) + 1);
  // Every index database answers its first 50 in (name, domain) order; merged in that order, the
  // first 50 are the ones a single database would give.
  const perIndex = await onEveryIndex(env, (index) =>
    index
      .select({ domain: companies.domain, name: companies.name, lower: lowerName.mapWith(String) })
      .from(companies)
      .where(or(eq(lowerName, name.trim().toLowerCase()), and(gte(lowerName, firstWord), lt(lowerName, wordEnd))))
      .orderBy(lowerName, companies.domain)
      .limit(50)
      .all(),
  );
  const rows = perIndex
    .flat()
    .sort((a, b) => compareText(a.lower, b.lower) || compareText(a.domain, b.domain))
    .slice(0, 50);
  const exact = rows.find((r) => r.name && r.name.trim().toLowerCase() === name.trim().toLowerCase());
  const same = exact ?? rows.find((r) => r.name && companyKey(r.name) === key);
  if (!same) {
    throw new NotFound(
      "company",
      `No company named "${name}" is in the index yet. Pass its website as 'domain' instead (the first search by domain adds the company).`,
    );
  }
  return same.domain;
}

/** SQLite's BINARY collation order (UTF-16 code units match it for the ASCII-lowered keys used here). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
