import { and, eq, inArray, sql } from "drizzle-orm";
import { db } from "../../db/client.js";
import { domainFormats, formatTallies } from "../../db/schema-smtp.js";
import type { Env } from "../../env.js";
import { countryOfDomain } from "../web/extract/company.js";
import { PATTERNS, type Pattern, type PatternInference } from "./patterns.js";

/**
 * How common each address format is among the domains whose format the index already knows (read on
 * their pages, or confirmed over SMTP), overall and per country. The SMTP search ranks a person's
 * candidates with these counts where a domain shows no format of its own (candidates.ts), so the
 * order follows the formats the index has met rather than a fixed assumption alone.
 *
 * One row per domain (its leading format) and a count per (country, format) kept beside it: reading
 * the counts costs one small query, whatever the size of the index. Two writers racing on one
 * domain can miscount it by one; the counts only order candidates.
 */

export const ALL_COUNTRIES = "*";

export interface FormatCounts {
  /** Domains per format, every country. */
  all: Map<Pattern, number>;
  /** Domains per format in the domain's country (empty when it has none). */
  country: Map<Pattern, number>;
}

export const NO_COUNTS: FormatCounts = { all: new Map(), country: new Map() };

const isPattern = (p: string): p is Pattern => (PATTERNS as readonly string[]).includes(p);

/** The leading format of an inference when the addresses clearly show one, else null. */
export function leadingFormat(inference: PatternInference | null, minConfidence: number): Pattern | null {
  const [top, second] = inference?.shares ?? [];
  if (!inference || !top || inference.confidence < minConfidence) return null;
  return !second || top.votes > second.votes ? top.pattern : null;
}

/**
 * Records `domain`'s format from its addresses' inference: a page's reading when it is fairly sure
 * (one clear address or more), an SMTP-confirmed address always (the server said it exists), and
 * one a Gravatar profile or a WKD key showed to exist.
 */
export async function recordDomainFormat(
  env: Pick<Env, "DB">,
  domain: string,
  inference: PatternInference | null,
  source: "page" | "smtp_check" | "web_evidence",
  now: number,
): Promise<void> {
  const pattern = leadingFormat(inference, source === "page" ? 0.5 : 0);
  if (!pattern) return;
  const d = db(env.DB);
  const row = await d.select().from(domainFormats).where(eq(domainFormats.domain, domain)).get();
  if (row?.pattern === pattern) return;
  const country = countryOfDomain(domain) ?? "";
  const bump = (c: string, p: string, by: number) =>
    d
      .insert(formatTallies)
      .values({ country: c, pattern: p, domains: Math.max(0, by) })
      .onConflictDoUpdate({
        target: [formatTallies.country, formatTallies.pattern],
        set: { domains: sql`max(0, ${formatTallies.domains} + ${by})` },
      });
  const statements = [
    d
      .insert(domainFormats)
      .values({ domain, country, pattern, source, updatedAt: now })
      .onConflictDoUpdate({ target: domainFormats.domain, set: { pattern, source, updatedAt: now } }),
    bump(ALL_COUNTRIES, pattern, 1),
    ...(country ? [bump(country, pattern, 1)] : []),
    ...(row
      ? [bump(ALL_COUNTRIES, row.pattern, -1), ...(row.country ? [bump(row.country, row.pattern, -1)] : [])]
      : []),
  ];
  await d.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
}

/** The counts that rank candidates at `domain`: every country's and its own country's. */
export async function formatCountsFor(env: Pick<Env, "DB">, domain: string): Promise<FormatCounts> {
  const country = countryOfDomain(domain) ?? "";
  const rows = await db(env.DB)
    .select()
    .from(formatTallies)
    .where(inArray(formatTallies.country, country ? [ALL_COUNTRIES, country] : [ALL_COUNTRIES]))
    .all();
  const counts: FormatCounts = { all: new Map(), country: new Map() };
  for (const r of rows) {
    if (!isPattern(r.pattern) || r.domains <= 0) continue;
    (r.country === ALL_COUNTRIES ? counts.all : counts.country).set(r.pattern, r.domains);
  }
  return counts;
}

/** The domains of one country counted for `pattern` (tests and the docs' figures). */
export async function talliedDomains(env: Pick<Env, "DB">, country: string, pattern: Pattern): Promise<number> {
  const row = await db(env.DB)
    .select({ n: formatTallies.domains })
    .from(formatTallies)
    .where(and(eq(formatTallies.country, country), eq(formatTallies.pattern, pattern)))
    .get();
  return row?.n ?? 0;
}
