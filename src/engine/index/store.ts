import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client.js";
import { companies, domains, emailSources, emails, people, phones } from "../../db/schema-index.js";
import { type IndexEnv, indexWritersFor } from "../../db/shards.js";
import { recordDomainFormat } from "../finder/format-tallies.js";
import type { PatternInference } from "../finder/patterns.js";
import { fullNameOf, type PersonName, parseName, splitFullName } from "../people/names.js";
import { alignRomanized } from "../people/native-names.js";
import { departmentOf, departmentOfRoleAddress, isGenericLocalPart, seniorityOf } from "../people/positions.js";
import { isFamilyFirstLanguage, type NameEvidence } from "../people/readings.js";
import type { CrawledPage } from "../web/crawl/crawler.js";
import { type CompanyFacts, emptyCompanyFacts, mergeCompanyFacts } from "../web/extract/company.js";
import { nameFromSite, type ShownName } from "../web/extract/people.js";
import { evidenceColumns, readDomainNames } from "./domain-names.js";
import { shownNamesOf } from "./read.js";

/** D1 binds at most 100 parameters per statement; rows are written in chunks that stay under it. */
const MAX_PARAMS = 100;
function chunks<T>(rows: T[], columns: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMS / columns));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

interface AddressFacts {
  email: string;
  evidence: NameEvidence | null;
  name: PersonName | null;
  position: string | null;
  /** The owner's name in its own script, from any page that shows it. */
  native: string | null;
  uris: Set<string>;
}

function gatherAddresses(pages: readonly CrawledPage[]): Map<string, AddressFacts> {
  const all = new Map<string, AddressFacts>();
  for (const page of pages) {
    for (const a of page.extraction.addresses) {
      const known = all.get(a.email);
      if (!known)
        all.set(a.email, {
          email: a.email,
          evidence: a.evidence,
          name: a.name,
          position: a.position,
          native: a.native ?? null,
          uris: new Set([page.url]),
        });
      else {
        known.uris.add(page.url);
        known.native ??= a.native ?? null;
        if (!known.name && a.name) {
          known.name = a.name;
          known.evidence = a.evidence;
        }
        if (!known.position && a.position) known.position = a.position;
      }
    }
  }
  // Addresses no page named: a name shown on another page of the same crawl may fit exactly one of
  // them, read in that page's order ("Hashimoto Satoshi" on a Japanese page is of the Hashimoto family).
  const names = new Map<string, ShownName>();
  for (const p of pages) {
    const familyFirstPage = isFamilyFirstLanguage(p.extraction.lang ?? "");
    for (const text of p.extraction.personNames ?? [])
      if (!names.get(text)?.familyFirstPage) names.set(text, { text, familyFirstPage });
  }
  for (const facts of all.values()) {
    if (facts.name) continue;
    const person = nameFromSite(facts.email, names.values());
    if (person) Object.assign(facts, { name: person.name, evidence: person.evidence });
  }
  // A name one page renders in Latin script ("Taro Tanaka" on /en/) and another shows in its own
  // (田中 太郎 on the Japanese page): the native name says which word is the family name.
  for (const facts of all.values()) {
    if (facts.evidence?.kind !== "shown" || !facts.native) continue;
    const stated = alignRomanized(facts.native, facts.evidence.text, facts.email.slice(0, facts.email.indexOf("@")));
    if (stated) Object.assign(facts, { name: stated, evidence: { kind: "stated", name: stated } });
  }
  return all;
}

/** The most names without an address one crawl keeps. */
const MAX_SHOWN_NAMES = 50;

/**
 * Names the pages show without an address (a team page's names and titles): those with a middle
 * name or initial ("MUÑOZ GIL Jesús L.", "Sarah Anne Miller") complete a finder query that leaves it
 * out; all of them are the colleagues an SMTP search reads the domain's culture, its format's
 * clashes and web evidence from (finder/confirm.ts). Those no address found in this crawl carries
 * and the index does not hold yet.
 */
async function newShownNames(
  store: Db,
  domain: string,
  pages: readonly CrawledPage[],
  found: readonly AddressFacts[],
): Promise<{ text: string; uri: string }[]> {
  const withAddress = new Set(found.map((a) => (a.evidence?.kind === "shown" ? a.evidence.text : null)));
  const candidates = new Map<string, string>();
  for (const page of pages) {
    for (const text of page.extraction.personNames ?? []) {
      if (candidates.size >= MAX_SHOWN_NAMES) break;
      if (!withAddress.has(text) && !candidates.has(text) && parseName(text).tokens.length >= 2)
        candidates.set(text, page.url);
    }
  }
  if (candidates.size === 0) return [];
  const known = new Set((await shownNamesOf(store, domain)).map((r) => r.fullName));
  return [...candidates].filter(([text]) => !known.has(text)).map(([text, uri]) => ({ text, uri }));
}

/** Company facts of the crawled pages: the home page first, then the others in crawl order. */
export function companyFactsOf(pages: readonly CrawledPage[]): CompanyFacts {
  return pages.reduce((facts, p) => mergeCompanyFacts(facts, p.extraction.company), emptyCompanyFacts());
}

export interface CrawlRecord {
  domain: string;
  pages: CrawledPage[];
  /** "crawling" while a deep pass is queued, "done" once nothing is left, "failed" when the site could not be read. */
  status: "crawling" | "done" | "failed";
  /** What went wrong, or what the site's defences did to the crawl (crawl/notes.ts describeCrawl); null when nothing. */
  error: string | null;
  now: number;
}

/**
 * Writes one crawl pass into the contact index in a single D1 batch: addresses with their sources
 * (an address no longer on a re-crawled page gets still_on_page = false), named people, company
 * facts, phone numbers, and the domain's crawl status.
 */
export async function storeCrawl(env: IndexEnv, record: CrawlRecord): Promise<{ addresses: number }> {
  // Every database the domain's writes go to (two while a reshard moves it) is written the same way.
  let stored: Awaited<ReturnType<typeof storeCrawlInto>> = { addresses: 0, formats: null };
  for (const store of await indexWritersFor(env, record.domain)) stored = await storeCrawlInto(store, record);
  // The format the pages show counts towards how common each format is (the SMTP search's order).
  await recordDomainFormat(env, record.domain, stored.formats, "page", record.now);
  return { addresses: stored.addresses };
}

async function storeCrawlInto(
  store: Db,
  record: CrawlRecord,
): Promise<{ addresses: number; formats: PatternInference | null }> {
  const { domain, now } = record;
  const statements: BatchItem<"sqlite">[] = [];
  const found = [...gatherAddresses(record.pages).values()];
  // Which word of each name is the given name is decided over all the domain's addresses at once.
  const statedNow = [...new Set(record.pages.flatMap((p) => p.extraction.statedFormats ?? []))];
  const [reading, shownNames] = await Promise.all([
    readDomainNames(store, domain, new Map(found.map((a) => [a.email, a.evidence])), statedNow),
    newShownNames(store, domain, record.pages, found),
  ]);
  for (const a of found) if (reading.names.has(a.email)) a.name = reading.names.get(a.email) ?? null;

  const emailRows = found.map((a) => {
    const local = a.email.slice(0, a.email.indexOf("@"));
    // A short role code that a page names a person for ("md@" beside Martina Di Stefano) is hers.
    const generic = isGenericLocalPart(local) && !a.name;
    return {
      email: a.email,
      domain,
      localPart: local,
      type: generic ? "generic" : "personal",
      firstName: a.name?.first ?? null,
      lastName: a.name?.last ?? null,
      middleName: a.name?.middle ?? null,
      ...evidenceColumns(generic ? null : a.evidence),
      position: a.position,
      department: departmentOf(a.position) ?? (generic ? departmentOfRoleAddress(local) : null),
      seniority: seniorityOf(a.position),
      source: "crawl",
      firstSeenAt: now,
      lastSeenAt: now,
    };
  });
  for (const rows of chunks(emailRows, 15)) {
    statements.push(
      store
        .insert(emails)
        .values(rows)
        .onConflictDoUpdate({
          target: emails.email,
          set: {
            lastSeenAt: sql`excluded.last_seen_at`,
            firstName: sql`coalesce(excluded.first_name, ${emails.firstName})`,
            lastName: sql`coalesce(excluded.last_name, ${emails.lastName})`,
            middleName: sql`case when excluded.first_name is not null then excluded.middle_name else ${emails.middleName} end`,
            displayName: sql`case when excluded.name_cue is not null then excluded.display_name else ${emails.displayName} end`,
            nameCue: sql`coalesce(excluded.name_cue, ${emails.nameCue})`,
            position: sql`coalesce(excluded.position, ${emails.position})`,
            department: sql`coalesce(excluded.department, ${emails.department})`,
            seniority: sql`coalesce(excluded.seniority, ${emails.seniority})`,
          },
        }),
    );
  }

  const sourceRows = found.flatMap((a) =>
    [...a.uris].map((uri) => ({
      email: a.email,
      uri,
      websiteUrl: domain,
      extractedOn: now,
      lastSeenOn: now,
      stillOnPage: true,
    })),
  );
  for (const rows of chunks(sourceRows, 6)) {
    statements.push(
      store
        .insert(emailSources)
        .values(rows)
        .onConflictDoUpdate({
          target: [emailSources.email, emailSources.uri],
          set: { lastSeenOn: sql`excluded.last_seen_on`, stillOnPage: true },
        }),
    );
  }
  // Every page read in this pass that no longer shows an address it used to.
  const crawledUris = record.pages.map((p) => p.url);
  for (const uris of chunks(crawledUris, 3)) {
    statements.push(
      store
        .update(emailSources)
        .set({ stillOnPage: false })
        .where(
          and(inArray(emailSources.uri, uris), lt(emailSources.lastSeenOn, now), eq(emailSources.stillOnPage, true)),
        ),
    );
  }

  const peopleRows = found.flatMap((a) =>
    a.name
      ? [
          {
            domain,
            email: a.email,
            firstName: a.name.first,
            lastName: a.name.last,
            fullName: fullNameOf(a.name),
            position: a.position,
            department: departmentOf(a.position),
            seniority: seniorityOf(a.position),
            source: "crawl",
            sourceUri: [...a.uris][0] ?? null,
            updatedAt: now,
          },
        ]
      : [],
  );
  for (const rows of chunks(peopleRows, 11)) {
    statements.push(
      store
        .insert(people)
        .values(rows)
        .onConflictDoUpdate({
          target: people.email,
          set: {
            firstName: sql`excluded.first_name`,
            lastName: sql`excluded.last_name`,
            fullName: sql`excluded.full_name`,
            position: sql`coalesce(excluded.position, ${people.position})`,
            department: sql`coalesce(excluded.department, ${people.department})`,
            seniority: sql`coalesce(excluded.seniority, ${people.seniority})`,
            sourceUri: sql`excluded.source_uri`,
            updatedAt: sql`excluded.updated_at`,
          },
        }),
    );
  }

  // People shown without an address: a finder query without the middle name completes from them, and
  // the SMTP search reads the domain's people from them.
  const nameRows = shownNames.flatMap(({ text, uri }) => {
    const split = splitFullName(text);
    if (!split) return [];
    return {
      domain,
      email: null,
      firstName: split.first,
      lastName: split.last,
      fullName: text,
      source: "crawl",
      sourceUri: uri,
      updatedAt: now,
    };
  });
  for (const rows of chunks(nameRows, 8)) statements.push(store.insert(people).values(rows));

  // Addresses of earlier crawls whose reading this crawl's evidence changed.
  for (const [email, name] of reading.renamed) {
    statements.push(
      store
        .update(emails)
        .set({ firstName: name.first, lastName: name.last, middleName: name.middle ?? null })
        .where(eq(emails.email, email)),
    );
    statements.push(
      store
        .update(people)
        .set({ firstName: name.first, lastName: name.last, fullName: fullNameOf(name), updatedAt: now })
        .where(eq(people.email, email)),
    );
  }

  const facts = companyFactsOf(record.pages);
  const hasFacts = Object.entries(facts).some(([, v]) => (Array.isArray(v) ? v.length > 0 : v !== null));
  if (hasFacts) statements.push(companyUpsert(store, domain, facts, now));

  statements.push(...(await phoneStatements(store, domain, record.pages, facts, now)));
  const formats = reading.formats ? JSON.stringify(reading.formats) : null;

  statements.push(
    store
      .insert(domains)
      .values({
        domain,
        crawlStatus: record.status,
        crawledAt: now,
        pagesCrawled: record.pages.length,
        lastError: record.error,
        formats,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: domains.domain,
        set: {
          formats: sql`coalesce(excluded.formats, ${domains.formats})`,
          crawlStatus: record.status,
          crawledAt: now,
          // The deep pass adds to the pages the first pass read.
          pagesCrawled:
            record.status === "crawling" ? record.pages.length : sql`${domains.pagesCrawled} + ${record.pages.length}`,
          lastError: record.error,
          updatedAt: now,
        },
      }),
  );
  await store.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return { addresses: found.length, formats: reading.formats };
}

function companyUpsert(store: Db, domain: string, f: CompanyFacts, now: number) {
  const row = {
    domain,
    name: f.name,
    description: f.description?.slice(0, 1000) ?? null,
    logo: f.logo,
    founded: f.founded,
    employeeCount: f.employeeCount,
    country: f.country,
    state: f.state,
    city: f.city,
    streetAddress: f.streetAddress,
    postalCode: f.postalCode,
    phone: f.phone,
    linkedinUrl: f.linkedinUrl,
    twitterUrl: f.twitterUrl,
    facebookUrl: f.facebookUrl,
    instagramUrl: f.instagramUrl,
    githubUrl: f.githubUrl,
    youtubeUrl: f.youtubeUrl,
    keywords: f.keywords.length ? JSON.stringify(f.keywords) : null,
    sameAs: f.sameAs.length ? JSON.stringify(f.sameAs) : null,
    source: "crawl",
    updatedAt: now,
  };
  // A fact a later page does not repeat is kept; one it states anew replaces the old value.
  const keep = (col: string) => sql.raw(`coalesce(excluded.${col}, companies.${col})`);
  return store
    .insert(companies)
    .values(row)
    .onConflictDoUpdate({
      target: companies.domain,
      set: {
        name: keep("name"),
        description: keep("description"),
        logo: keep("logo"),
        founded: keep("founded"),
        employeeCount: keep("employee_count"),
        country: keep("country"),
        state: keep("state"),
        city: keep("city"),
        streetAddress: keep("street_address"),
        postalCode: keep("postal_code"),
        phone: keep("phone"),
        linkedinUrl: keep("linkedin_url"),
        twitterUrl: keep("twitter_url"),
        facebookUrl: keep("facebook_url"),
        instagramUrl: keep("instagram_url"),
        githubUrl: keep("github_url"),
        youtubeUrl: keep("youtube_url"),
        keywords: keep("keywords"),
        sameAs: keep("same_as"),
        updatedAt: now,
      },
    });
}

/**
 * Company numbers (email = null). The unique index cannot dedupe them (NULLs are distinct in
 * SQLite), so the existing numbers are read first and only touched.
 */
async function phoneStatements(
  store: Db,
  domain: string,
  pages: readonly CrawledPage[],
  facts: CompanyFacts,
  now: number,
) {
  const numbers = new Map<string, string>();
  for (const p of pages) for (const n of p.extraction.phones) if (!numbers.has(n)) numbers.set(n, p.url);
  if (facts.phone && !numbers.has(facts.phone)) numbers.set(facts.phone, pages[0]?.url ?? "");
  if (numbers.size === 0) return [];
  const existing = await store
    .select({ id: phones.id, e164: phones.e164 })
    .from(phones)
    .where(and(eq(phones.domain, domain), sql`${phones.email} is null`))
    .all();
  const known = new Map(existing.map((r) => [r.e164, r.id]));
  const statements: BatchItem<"sqlite">[] = [];
  const fresh = [...numbers]
    .filter(([n]) => !known.has(n))
    .map(([e164, uri]) => ({ domain, e164, sourceUri: uri, source: "crawl", firstSeenAt: now, lastSeenAt: now }));
  for (const rows of chunks(fresh, 6)) statements.push(store.insert(phones).values(rows));
  const seenIds = [...numbers.keys()].map((n) => known.get(n)).filter((id): id is number => id !== undefined);
  for (const ids of chunks(seenIds, 2))
    statements.push(store.update(phones).set({ lastSeenAt: now }).where(inArray(phones.id, ids)));
  return statements;
}

export async function markCrawlFailed(env: IndexEnv, domain: string, error: string, now: number) {
  for (const store of await indexWritersFor(env, domain))
    await store
      .insert(domains)
      .values({ domain, crawlStatus: "failed", crawledAt: now, lastError: error, updatedAt: now })
      .onConflictDoUpdate({
        target: domains.domain,
        set: { crawlStatus: "failed", crawledAt: now, lastError: error, updatedAt: now },
      });
}
