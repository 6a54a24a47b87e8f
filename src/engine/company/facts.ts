import type { Env } from "../../env.js";
import { ensureIndexed } from "../index/ensure-indexed.js";
import { type CompanyRecord, companyByDomain } from "../index/people.js";

/**
 * Company facts for a domain the index has not seen yet come from the crawler's first pass over
 * the domain's own site (robots.txt honoured; JSON-LD Organization, og:site_name, social links,
 * tel: links and announced numbers), which stores them, so the next request is a D1 read.
 */
export interface CrawlContext {
  env: Env;
  now: () => number;
  waitUntil(promise: Promise<unknown>): void;
}

/** False for no row, and for a row holding only technologies (from a technology lookup). */
export function hasFacts(c: CompanyRecord | null): c is CompanyRecord {
  return !!c && !!(c.name || c.description || c.logo || c.source === "import");
}

/**
 * The stored company, or the facts a crawl of its site finds now; null when the site states
 * nothing. Throws the crawler's errors (502/504 unreachable, 503 DNS, 422 no such domain).
 */
export async function companyOrFetch(ctx: CrawlContext, domain: string): Promise<CompanyRecord | null> {
  const stored = await companyByDomain(ctx.env, domain);
  if (hasFacts(stored)) return stored;
  const state = await ensureIndexed(ctx, domain);
  // Crawled recently and nothing was stated: do not crawl again for every request.
  if (!state.live) return null;
  const crawled = await companyByDomain(ctx.env, domain);
  return hasFacts(crawled) ? crawled : null;
}
