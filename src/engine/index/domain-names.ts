import { desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { domains, emails } from "../../db/schema-index.js";
import { readJointly } from "../finder/joint-reading.js";
import { PATTERNS, type Pattern, type PatternInference } from "../finder/patterns.js";
import type { PersonName } from "../people/names.js";
import { isRoleOnly } from "../people/positions.js";
import { type NameEvidence, readingsOf } from "../people/readings.js";

/**
 * The names of a domain's people and its address formats, read together over every personal
 * address the index holds for the domain (finder/joint-reading.ts), each time a crawl adds to it.
 */

/** The domain's formats as stored in `domains.formats`. */
export interface StoredFormats extends PatternInference {
  /** Conventions the domain's pages state with a placeholder ("vorname.nachname@…"). */
  stated: Pattern[];
}

/** The most addresses read together; a larger domain is read from its most recently seen ones. */
const MAX_READ_TOGETHER = 2000;

export type NameCue = "shown" | "shown-family-first" | "stated";

/** The evidence columns of an emails row for a name found on a page. */
export function evidenceColumns(evidence: NameEvidence | null): {
  displayName: string | null;
  nameCue: NameCue | null;
} {
  if (!evidence) return { displayName: null, nameCue: null };
  if (evidence.kind === "stated") return { displayName: null, nameCue: "stated" };
  return { displayName: evidence.text, nameCue: evidence.familyFirstPage ? "shown-family-first" : "shown" };
}

interface StoredRow {
  email: string;
  localPart: string;
  type: string;
  firstName: string | null;
  middleName: string | null;
  lastName: string | null;
  displayName: string | null;
  nameCue: string | null;
}

/** What an index row says about its owner's name: the displayed name when it kept one, else the stored parts. */
function evidenceOfRow(
  row: Pick<StoredRow, "firstName" | "middleName" | "lastName" | "displayName" | "nameCue">,
): NameEvidence | null {
  if (row.displayName && (row.nameCue === "shown" || row.nameCue === "shown-family-first")) {
    return { kind: "shown", text: row.displayName, familyFirstPage: row.nameCue === "shown-family-first" };
  }
  if (row.firstName && row.lastName) {
    return {
      kind: "stated",
      name: { first: row.firstName, last: row.lastName, ...(row.middleName ? { middle: row.middleName } : {}) },
    };
  }
  return null;
}

export interface DomainReading {
  /** The reading of each personal address's owner, by address (null: no reading fits a format). */
  names: Map<string, PersonName | null>;
  formats: StoredFormats | null;
  /** Stored addresses this crawl did not see whose reading changed: their new names. */
  renamed: Map<string, PersonName>;
}

/**
 * Reads the domain's names and formats with this crawl's findings (`found`: address → the name
 * evidence its pages gave now, or null) on top of what the index already holds.
 */
export async function readDomainNames(
  store: Db,
  domain: string,
  found: ReadonlyMap<string, NameEvidence | null>,
  statedNow: readonly Pattern[],
): Promise<DomainReading> {
  const [stored, dom] = await Promise.all([
    store
      .select({
        email: emails.email,
        localPart: emails.localPart,
        type: emails.type,
        firstName: emails.firstName,
        middleName: emails.middleName,
        lastName: emails.lastName,
        displayName: emails.displayName,
        nameCue: emails.nameCue,
      })
      .from(emails)
      .where(eq(emails.domain, domain))
      .orderBy(desc(emails.lastSeenAt))
      .limit(MAX_READ_TOGETHER)
      .all(),
    store.select({ formats: domains.formats }).from(domains).where(eq(domains.domain, domain)).get(),
  ]);
  const storedBy = new Map(stored.map((r) => [r.email, r]));
  const evidence = new Map<string, NameEvidence>();
  for (const r of stored) {
    const e = evidenceOfRow(r);
    if (e && r.type === "personal") evidence.set(r.email, e);
  }
  for (const [email, e] of found) {
    if (e && !isRoleOnly(localOf(email))) evidence.set(email, e);
  }
  const stated = [...new Set([...(parseStoredFormats(dom?.formats)?.stated ?? []), ...statedNow])];

  const read = [...evidence].slice(0, MAX_READ_TOGETHER);
  const addresses = read.map(([email]) => email);
  const joint = readJointly(
    read.map(([email, e]) => ({ localPart: localOf(email), readings: readingsOf(e) })),
    stated,
  );
  const names = new Map<string, PersonName | null>();
  const renamed = new Map<string, PersonName>();
  addresses.forEach((email, i) => {
    const name = joint.names[i] ?? null;
    names.set(email, name);
    const before = storedBy.get(email);
    if (name && before && !found.has(email) && !sameReading(before, name)) renamed.set(email, name);
  });
  const formats = joint.inference.observations > 0 ? { ...joint.inference, stated } : null;
  return { names, formats, renamed };
}

const localOf = (email: string) => email.slice(0, email.indexOf("@"));

function sameReading(row: Pick<StoredRow, "firstName" | "middleName" | "lastName">, name: PersonName): boolean {
  return (
    row.firstName === name.first && row.lastName === name.last && (row.middleName ?? null) === (name.middle ?? null)
  );
}

const KNOWN = new Set<string>(PATTERNS);

/** `domains.formats` parsed; null when absent or not in the shape this version writes. */
export function parseStoredFormats(json: string | null | undefined): StoredFormats | null {
  if (!json) return null;
  try {
    const v = JSON.parse(json) as StoredFormats;
    if (!Array.isArray(v.shares) || !v.shares.every((s) => KNOWN.has(s.pattern) && typeof s.share === "number"))
      return null;
    return { ...v, stated: Array.isArray(v.stated) ? v.stated.filter((p) => KNOWN.has(p)) : [] };
  } catch {
    return null;
  }
}
