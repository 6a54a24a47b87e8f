import { and, isNotNull, ne, or, sql } from "drizzle-orm";
import { companies } from "../../db/schema-index.js";
import { onEveryIndex } from "../../db/shards.js";
import type { Env } from "../../env.js";
import { type CompanyRecord, companyByDomain, jsonList } from "../index/people.js";
import { type CrawlContext, companyOrFetch, hasFacts } from "./facts.js";

/**
 * Domains similar to a domain, from signals both companies carry in the index. Each signal adds
 * to a score:
 *   same industry (case-insensitive)                      +3
 *   each shared keyword (at most 3 counted)                +2
 *   each shared technology, weighted by rarity: +2 when at most a tenth of the candidates use it,
 *     +1 otherwise (everyone has an email host; few share a niche tool); at most 4 counted
 *   a shared sameAs / social profile host+path            +2 (same parent or group)
 *   same company size bucket                              +1
 *   same country +1, and same city +1 more
 * A candidate needs a score of at least 3 and one non-location signal: sharing a country alone
 * says nothing about what a company does. Ties break by domain so pages are stable.
 */
export interface SimilarCompany {
  domain: string;
  name: string | null;
  industry: string | null;
  score: number;
}

const MAX_CANDIDATES = 5000;

function norm(list: string[]): Set<string> {
  return new Set(list.map((s) => s.trim().toLowerCase()).filter(Boolean));
}

function profiles(c: CompanyRecord): Set<string> {
  const urls = [
    ...jsonList(c.sameAs),
    c.linkedinUrl,
    c.twitterUrl,
    c.facebookUrl,
    c.instagramUrl,
    c.githubUrl,
    c.youtubeUrl,
  ].filter((u): u is string => !!u);
  const out = new Set<string>();
  for (const u of urls) {
    try {
      const url = new URL(u);
      out.add(`${url.hostname.replace(/^www\./, "")}${url.pathname.replace(/\/+$/, "").toLowerCase()}`);
    } catch {
      /* not a URL: not a signal */
    }
  }
  return out;
}

/**
 * null: the target domain is not known (and, with `crawl`, its site states nothing), so nothing
 * can be compared. Without `crawl` only the index is read.
 */
export async function similarCompanies(
  env: Env,
  domain: string,
  opts: { crawl?: CrawlContext } = {},
): Promise<SimilarCompany[] | null> {
  const indexed = await companyByDomain(env, domain);
  const target = hasFacts(indexed) || !opts.crawl ? indexed : await companyOrFetch(opts.crawl, domain);
  if (!target) return null;
  // Candidates from every index database in parallel, each its first MAX_CANDIDATES by domain; merged
  // by domain, the first MAX_CANDIDATES are the ones a single database would give.
  const perIndex = await onEveryIndex(env, (index) =>
    index
      .select()
      .from(companies)
      .where(
        and(
          ne(companies.domain, domain),
          or(
            target.industry ? sql`lower(${companies.industry}) = lower(${target.industry})` : undefined,
            isNotNull(companies.keywords),
            isNotNull(companies.technologies),
            isNotNull(companies.sameAs),
            isNotNull(companies.linkedinUrl),
            isNotNull(companies.twitterUrl),
            isNotNull(companies.facebookUrl),
          ),
        ),
      )
      .orderBy(companies.domain)
      .limit(MAX_CANDIDATES)
      .all(),
  );
  const rows = perIndex
    .flat()
    .sort((x, y) => (x.domain < y.domain ? -1 : x.domain > y.domain ? 1 : 0))
    .slice(0, MAX_CANDIDATES);

  const techCount = new Map<string, number>();
  for (const r of rows) for (const t of norm(jsonList(r.technologies))) techCount.set(t, (techCount.get(t) ?? 0) + 1);
  const rare = (t: string) => (techCount.get(t) ?? 0) <= Math.max(1, rows.length / 10);

  const tKeywords = norm(jsonList(target.keywords));
  const tTech = norm(jsonList(target.technologies));
  const tProfiles = profiles(target);
  const out: SimilarCompany[] = [];
  for (const c of rows) {
    let score = 0;
    let what = 0;
    if (target.industry && c.industry && target.industry.toLowerCase() === c.industry.toLowerCase()) {
      score += 3;
      what++;
    }
    const sharedKeywords = [...norm(jsonList(c.keywords))].filter((k) => tKeywords.has(k)).length;
    if (sharedKeywords) {
      score += 2 * Math.min(3, sharedKeywords);
      what++;
    }
    const sharedTech = [...norm(jsonList(c.technologies))].filter((t) => tTech.has(t));
    if (sharedTech.length) {
      score += sharedTech
        .map((t) => (rare(t) ? 2 : 1))
        .sort((a, b) => b - a)
        .slice(0, 4)
        .reduce((a, b) => a + b, 0);
      what++;
    }
    if ([...profiles(c)].some((p) => tProfiles.has(p))) {
      score += 2;
      what++;
    }
    if (target.companySize && c.companySize === target.companySize) score += 1;
    if (target.country && c.country === target.country) {
      score += 1;
      if (target.city && c.city && c.city.toLowerCase() === target.city.toLowerCase()) score += 1;
    }
    if (what > 0 && score >= 3) out.push({ domain: c.domain, name: c.name, industry: c.industry, score });
  }
  return out.sort((a, b) => b.score - a.score || a.domain.localeCompare(b.domain));
}
