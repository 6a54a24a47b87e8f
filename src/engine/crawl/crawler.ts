import robotsParser from "robots-parser";
import type { Env } from "../../env.js";
import { extractPage, type PageExtraction } from "../extract/page.js";
import { fetchPage, type PageFetch } from "./fetch-page.js";
import { canonical, GUESSED_PATHS, rankCandidates, sitemapLocations } from "./plan.js";

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

/** On the request path: the home page and the few best pages, quickly. */
export const FIRST_PASS: CrawlBudget = { maxPages: 5, maxBytesPerPage: 512 * 1024, totalMs: 12_000, pageTimeoutMs: 6_000, concurrency: 4 };
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
  queue: string[];
  done: Set<string>;
  budget: CrawlBudget;
  startedAt: number;
  /** Follow links found on crawled pages (the deep pass does; the first pass only ranks the home page's links). */
  followLinks: boolean;
}

async function runPass(env: Env, input: PassInput) {
  const { domain, origin, robots, budget, done } = input;
  const host = new URL(origin).host;
  let queue = input.queue.filter((u) => new URL(u).host === host);
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
    const batch: string[] = [];
    while (queue.length > 0 && batch.length < Math.min(budget.concurrency, budget.maxPages - fetchedCount)) {
      const url = queue.shift()!;
      if (done.has(url)) continue;
      done.add(url);
      if (!robots.isAllowed(url)) {
        disallowed.push(url);
        continue;
      }
      batch.push(url);
    }
    fetchedCount += batch.length;
    const results = await Promise.all(
      batch.map((url) => fetchPage(url, env, { timeoutMs: Math.min(budget.pageTimeoutMs, left), maxBytes: budget.maxBytesPerPage })),
    );
    const found: string[] = [];
    for (const r of results) {
      if (r.kind !== "ok") continue;
      const extraction = await extractPage(r.body, r.url, domain, r.contentType);
      pages.push({ url: canonical(r.url) ?? r.url, extraction });
      if (input.followLinks) found.push(...extraction.links);
    }
    if (found.length) queue = rankCandidates([...queue, ...found.filter((u) => new URL(u).host === host)], done);
  }
  return { pages, pending: queue.filter((u) => !done.has(u)), disallowed, failure };
}

/**
 * The first, bounded pass that may run on the request path: robots.txt, the home page, then the
 * best-ranked pages it links to (plus the usual contact/team/about/imprint paths). What is left is
 * returned as `pending` for the deep pass.
 */
export async function crawlFirstPass(env: Env, domain: string, budget: CrawlBudget = FIRST_PASS): Promise<CrawlOutcome> {
  const startedAt = Date.now();
  const site = await openSite(env, domain, budget);
  if (!site.origin || !site.robots) {
    return { origin: null, pages: [], done: [], pending: [], sitemaps: [], failure: site.failure, disallowed: [] };
  }
  const { origin, robots } = site;
  const done = new Set<string>();
  const home = await runPass(env, { domain, origin, robots, queue: [`${origin}/`], done, budget: { ...budget, maxPages: 1 }, startedAt, followLinks: false });
  const homeLinks = home.pages[0]?.extraction.links ?? [];
  // Pages the site links to come before guessed paths, which often answer 404.
  const linked = rankCandidates(homeLinks, done);
  const candidates = [...linked, ...rankCandidates(GUESSED_PATHS.map((p) => `${origin}${p}`), new Set([...done, ...linked]))];
  const rest = await runPass(env, {
    domain, origin, robots, queue: candidates, done, budget: { ...budget, maxPages: budget.maxPages - 1 }, startedAt, followLinks: false,
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

/**
 * Sitemap URLs (one level of sitemap index followed, at most three child sitemaps). Only sitemaps
 * on the crawled site are read: robots.txt and sitemap indexes may name any host, and following
 * them would make the crawler fetch third-party URLs on an attacker's say.
 */
async function sitemapUrls(env: Env, domain: string, origin: string, declared: string[], budget: CrawlBudget): Promise<string[]> {
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
  for (const root of roots) {
    const doc = await read(root);
    if (!doc.isIndex) urls.push(...doc.urls);
    else for (const child of doc.urls.filter(onSite).slice(0, 3)) urls.push(...(await read(child)).urls);
  }
  return urls;
}

/** The deep pass (queue consumer): pending pages, sitemap pages and the keyword links they lead to. */
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
  const queue = rankCandidates([...previous.pending, ...fromSitemap, ...GUESSED_PATHS.map((p) => `${origin}${p}`)], done);
  const pass = await runPass(env, { domain, origin, robots, queue, done, budget, startedAt, followLinks: true });
  return { origin, pages: pass.pages, done: [...done], pending: pass.pending, sitemaps: robots.sitemaps, failure: pass.failure, disallowed: pass.disallowed };
}
