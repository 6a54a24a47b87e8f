import robotsParser from "robots-parser";
import type { Env } from "../../../env.js";
import { extractPage, type PageExtraction } from "../extract/page.js";
import { fetchPage, type PageFetch } from "../fetch-page.js";
import { isGenericLocalPart } from "../../people/positions.js";
import {
  type Candidate, canonical, guessedCandidates, HOME_SCORE, linkCandidates, listsPeople, onOrigin, rankChildSitemaps, rankFrontier,
  scoreUrl, sitemapLocations,
} from "./plan.js";

/** The token robots.txt rules are matched against. */
export const ROBOTS_AGENT = "ContactIntelligenceBot";

export interface CrawlBudget {
  maxPages: number;
  maxBytesPerPage: number;
  /** Wall time for the whole pass. */
  totalMs: number;
  pageTimeoutMs: number;
  concurrency: number;
}

/**
 * On the request path: the home page, the sitemap and the best pages they lead to (team pages,
 * their next pages and profiles), quickly: about three rounds of parallel fetches. 24 pages let a
 * team listing with a dozen profile pages be read whole in the first answer (12 left most of
 * them to the deep pass: first-answer recall 84% on generated sites, issue 20).
 */
export const FIRST_PASS: CrawlBudget = { maxPages: 24, maxBytesPerPage: 512 * 1024, totalMs: 12_000, pageTimeoutMs: 6_000, concurrency: 8 };
/** Off the request path (queue consumer): the rest of the ranked pages and the sitemap. */
export const DEEP_PASS: CrawlBudget = { maxPages: 25, maxBytesPerPage: 1024 * 1024, totalMs: 60_000, pageTimeoutMs: 10_000, concurrency: 4 };

export interface CrawledPage {
  url: string;
  extraction: PageExtraction;
}

export interface CrawlOutcome {
  /** Scheme and host the site answered on (https://acme.com or https://www.acme.com); null when unreachable. */
  origin: string | null;
  pages: CrawledPage[];
  /** Every URL tried or refused by robots.txt, so a later pass does not repeat it. */
  done: string[];
  /** Ranked URLs this pass had no budget for. */
  pending: string[];
  /** Robots.txt Sitemap: lines. */
  sitemaps: string[];
  /** Why the site could not be read at all (when origin is null) or what went wrong on the way. */
  failure: { reason: string; timedOut: boolean; refused?: boolean } | null;
  /** Pages refused by robots.txt. */
  disallowed: string[];
}

interface Robots {
  isAllowed(url: string): boolean;
  sitemaps: string[];
}

function parseRobots(robotsUrl: string, fetched: PageFetch): Robots {
  if (fetched.kind !== "ok") return { isAllowed: () => true, sitemaps: [] }; // 4xx: no rules (RFC 9309 §2.3.1.3)
  const parsed = robotsParser(robotsUrl, fetched.body);
  return { isAllowed: (url) => parsed.isAllowed(url, ROBOTS_AGENT) !== false, sitemaps: parsed.getSitemaps() };
}

/**
 * Finds where the site answers and reads its robots.txt. An unreachable robots.txt (network error,
 * 5xx) means "crawl nothing" (RFC 9309 §2.3.1.4); the caller reports the site as unreachable.
 */
async function openSite(env: Env, domain: string, budget: CrawlBudget) {
  let last: Extract<PageFetch, { kind: "unreachable" }> | null = null;
  let refused: string | null = null;
  for (const base of [`https://${domain}`, `https://www.${domain}`]) {
    const robotsUrl = `${base}/robots.txt`;
    const fetched = await fetchPage(robotsUrl, env, { timeoutMs: budget.pageTimeoutMs, maxBytes: 256 * 1024 });
    if (fetched.kind === "unreachable") {
      // A timeout on either host is the more telling failure (504 rather than 502).
      if (!last || fetched.timedOut) last = fetched;
      continue;
    }
    // The egress guard refused the host (a private address, say): that host is not the site.
    if (fetched.kind === "unusable" && fetched.refused) {
      refused ??= fetched.reason;
      continue;
    }
    const origin = new URL(fetched.url).origin;
    return { origin, robots: parseRobots(`${origin}/robots.txt`, fetched), failure: null };
  }
  const failure = refused && !last?.timedOut
    ? { reason: refused, timedOut: false, refused: true }
    : { reason: last?.reason ?? "unreachable", timedOut: last?.timedOut ?? false };
  return { origin: null, robots: null, failure };
}

interface PassInput {
  domain: string;
  origin: string;
  robots: Robots;
  queue: Candidate[];
  done: Set<string>;
  budget: CrawlBudget;
  startedAt: number;
}

async function runPass(env: Env, input: PassInput) {
  const { domain, origin, robots, budget, done } = input;
  let queue = rankFrontier(input.queue.flatMap((c) => {
    const url = onOrigin(c.url, origin);
    return url ? [{ url, score: c.score }] : [];
  }), done);
  const pages: CrawledPage[] = [];
  const disallowed: string[] = [];
  let failure: CrawlOutcome["failure"] = null;
  let fetchedCount = 0;
  while (queue.length > 0 && fetchedCount < budget.maxPages) {
    const left = budget.totalMs - (Date.now() - input.startedAt);
    if (left <= 0) {
      failure = { reason: "crawl time budget used up", timedOut: true };
      break;
    }
    const batch: Candidate[] = [];
    while (queue.length > 0 && batch.length < Math.min(budget.concurrency, budget.maxPages - fetchedCount)) {
      const next = queue.shift()!;
      if (done.has(next.url)) continue;
      done.add(next.url);
      if (!robots.isAllowed(next.url)) {
        disallowed.push(next.url);
        continue;
      }
      batch.push(next);
    }
    fetchedCount += batch.length;
    const results = await Promise.all(
      batch.map((c) => fetchPage(c.url, env, { timeoutMs: Math.min(budget.pageTimeoutMs, left), maxBytes: budget.maxBytesPerPage })),
    );
    const found: Candidate[] = [];
    for (const [i, r] of results.entries()) {
      if (r.kind !== "ok") continue;
      // A moved page (301) is read once, under the address it answers on.
      const url = onOrigin(r.url, origin) ?? canonical(r.url) ?? r.url;
      if (url !== batch[i]!.url && pages.some((p) => p.url === url)) continue;
      done.add(url);
      const extraction = await extractPage(r.body, r.url, domain, r.contentType);
      pages.push({ url, extraction });
      // Unnamed personal addresses count too: a listing whose names the reader missed is still a listing.
      const named = extraction.addresses.filter((a) => a.name).length;
      const personal = extraction.addresses.filter((a) => !isGenericLocalPart(a.email.slice(0, a.email.indexOf("@")))).length;
      const from = { url, score: batch[i]!.score, listsPeople: listsPeople(url, named, extraction.linkRefs, personal) };
      found.push(...linkCandidates(extraction.linkRefs, from, origin));
    }
    if (found.length) queue = rankFrontier([...queue, ...found], done);
  }
  return { pages, pending: queue.filter((c) => !done.has(c.url)).map((c) => c.url), disallowed, failure };
}

/**
 * The first, bounded pass that may run on the request path: robots.txt, the home page and the
 * sitemap (in parallel), then the best-ranked pages they lead to, following the links of the pages
 * it reads (a team page's next page and profiles). What is left is returned as `pending`.
 */
export async function crawlFirstPass(env: Env, domain: string, budget: CrawlBudget = FIRST_PASS): Promise<CrawlOutcome> {
  const startedAt = Date.now();
  const site = await openSite(env, domain, budget);
  if (!site.origin || !site.robots) {
    return { origin: null, pages: [], done: [], pending: [], sitemaps: [], failure: site.failure, disallowed: [] };
  }
  const { origin, robots } = site;
  const done = new Set<string>();
  const [home, fromSitemap] = await Promise.all([
    runPass(env, { domain, origin, robots, queue: [{ url: `${origin}/`, score: HOME_SCORE }], done, budget: { ...budget, maxPages: 1 }, startedAt }),
    sitemapUrls(env, domain, origin, robots.sitemaps, budget, 2),
  ]);
  const homePage = home.pages[0];
  const linked = homePage ? linkCandidates(homePage.extraction.linkRefs, { url: homePage.url, score: HOME_SCORE, listsPeople: false }, origin) : [];
  const candidates = [...linked, ...urlCandidates(fromSitemap), ...guessedCandidates(origin)];
  const rest = await runPass(env, {
    domain, origin, robots, queue: candidates, done, budget: { ...budget, maxPages: budget.maxPages - 1 }, startedAt,
  });
  const pages = [...home.pages, ...rest.pages];
  // The home page may be refused or missing; the site still answered (robots.txt), so it is not "unreachable".
  return {
    origin,
    pages,
    done: [...done],
    pending: rest.pending,
    sitemaps: robots.sitemaps,
    failure: rest.failure ?? home.failure,
    disallowed: [...home.disallowed, ...rest.disallowed],
  };
}

function urlCandidates(urls: readonly string[], floor = 0): Candidate[] {
  return urls.flatMap((url) => {
    const s = scoreUrl(url);
    return s === null && !floor ? [] : [{ url, score: Math.max(s ?? 0, floor) }];
  });
}

/**
 * Sitemap URLs: the declared sitemaps (or /sitemap.xml), following indexes two levels deep, page
 * sitemaps first. Only sitemaps on the crawled site are read: robots.txt and sitemap indexes may
 * name any host, and following them would make the crawler fetch third-party URLs on an attacker's say.
 */
async function sitemapUrls(env: Env, domain: string, origin: string, declared: string[], budget: CrawlBudget, maxChildren = 3): Promise<string[]> {
  const onSite = (u: string) => {
    try {
      const host = new URL(u).hostname;
      return host === domain || host.endsWith(`.${domain}`);
    } catch {
      return false;
    }
  };
  const own = declared.filter(onSite);
  const roots = own.length ? own.slice(0, 3) : [`${origin}/sitemap.xml`];
  const urls: string[] = [];
  const read = async (url: string) => {
    const r = await fetchPage(url, env, { timeoutMs: budget.pageTimeoutMs, maxBytes: 2 * 1024 * 1024 });
    return r.kind === "ok" ? sitemapLocations(r.body) : { urls: [], isIndex: false };
  };
  const walk = async (url: string, depth: number): Promise<void> => {
    const doc = await read(url);
    if (!doc.isIndex) urls.push(...doc.urls);
    else if (depth < 2) await Promise.all(rankChildSitemaps(doc.urls.filter(onSite)).slice(0, maxChildren).map((child) => walk(child, depth + 1)));
  };
  await Promise.all(roots.map((root) => walk(root, 0)));
  return urls;
}

/** The deep pass (queue consumer): pending pages, sitemap pages and the links they lead to. */
export async function crawlDeepPass(
  env: Env,
  domain: string,
  previous: { done: string[]; pending: string[] },
  budget: CrawlBudget = DEEP_PASS,
): Promise<CrawlOutcome> {
  const startedAt = Date.now();
  const site = await openSite(env, domain, budget);
  if (!site.origin || !site.robots) {
    return { origin: null, pages: [], done: previous.done, pending: previous.pending, sitemaps: [], failure: site.failure, disallowed: [] };
  }
  const { origin, robots } = site;
  const done = new Set(previous.done);
  const fromSitemap = await sitemapUrls(env, domain, origin, robots.sitemaps, budget);
  // Pending URLs were ranked with their link text and page; they keep a place even when their address alone says little.
  const queue = [...urlCandidates(previous.pending, 50), ...urlCandidates(fromSitemap), ...guessedCandidates(origin)];
  const pass = await runPass(env, { domain, origin, robots, queue, done, budget, startedAt });
  return { origin, pages: pass.pages, done: [...done], pending: pass.pending, sitemaps: robots.sitemaps, failure: pass.failure, disallowed: pass.disallowed };
}
