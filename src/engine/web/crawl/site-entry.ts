// How a pass enters a site and what it reads beside its pages: where the site answers and its
// robots.txt (openSite), the soft-404 probe and the sitemaps. Each ask goes through the site's pace
// (pace.ts): a stated allowance is never exceeded by them either.
import type { Env } from "../../../env.js";
import { extractPage } from "../extract/page.js";
import { fetchPage, type PageFetch } from "../fetch-page.js";
import { type Robots, readRobots } from "../robots.js";
import { type CrawlBudget, clockOf } from "./budget.js";
import { type CrawlNotes, noteChallenge } from "./notes.js";
import { askPaced, type Pace, spareAsks, untilReset } from "./pace.js";
import { type Candidate, rankChildSitemaps, scoreUrl, sitemapLocations } from "./plan.js";
import { askedToComeBack, retryWait } from "./retry.js";
import { type NotFoundPage, notFoundPage, probePath } from "./soft-not-found.js";

/** How long the first host asked (the apex) has to answer robots.txt before the other is asked. */
const FIRST_HOST_MS = 3_000;

/**
 * Finds where the site answers and reads its robots.txt (one retry of a transient failure). An
 * unreachable robots.txt (network error, 5xx) means "crawl nothing" (RFC 9309 §2.3.1.4); the
 * caller reports the site as unreachable.
 */
export async function openSite(
  env: Env,
  domain: string,
  budget: CrawlBudget,
  notes: CrawlNotes,
  pace: Pace,
  knownOrigin?: string | null,
) {
  let last: Extract<PageFetch, { kind: "unreachable" }> | null = null;
  let refused: string | null = null;
  // The deep pass asks where the first pass found the site first (a hung apex costs it nothing, a
  // redirect from the other host no request).
  const www = `https://www.${domain}`;
  const hosts = knownOrigin === www ? [www, `https://${domain}`] : [`https://${domain}`, www];
  const clock = clockOf(budget);
  // A window the previous pass spent is waited out (when its reset is near), not asked into.
  const wait = spareAsks(pace, clock.now()) < 1 ? untilReset(pace, clock.now()) : null;
  if (wait !== null && wait < budget.totalMs / 3) await clock.sleep(wait);
  for (const base of hosts) {
    const robotsUrl = `${base}/robots.txt`;
    const limits = {
      // A host that holds the connection and never answers (the apex of a site on www) would take
      // the page time-out, most of the first pass: robots.txt is small, so the first host gets a
      // few seconds before the other is asked, which gets the full time.
      timeoutMs: base === hosts[0] ? Math.min(budget.pageTimeoutMs, FIRST_HOST_MS) : budget.pageTimeoutMs,
      maxBytes: 256 * 1024,
      now: clockOf(budget).now,
      cookies: budget.cookies,
    };
    const ask = () => askPaced(pace, clockOf(budget).now, () => fetchPage(robotsUrl, env, limits));
    let fetched = await ask();
    // A site that is down is not waited for here (the deep pass's queue retries it later); one that says "later" is.
    // The last pass waits out a site-wide rate limit's Retry-After here (up to a third of its time):
    // everything after robots.txt would meet the same limit.
    const asked = "retryAfterMs" in fetched ? (fetched.retryAfterMs ?? 0) : 0;
    const wait = askedToComeBack(fetched)
      ? budget.retry.clamp && asked > budget.retry.maxWaitMs && asked < budget.totalMs / 3
        ? asked
        : retryWait(fetched, budget.retry, budget.totalMs, budget.pageTimeoutMs)
      : null;
    if (wait !== null) {
      notes.retried++;
      await clockOf(budget).sleep(wait);
      fetched = await ask();
    }
    if (fetched.kind === "unusable" && fetched.challenge) noteChallenge(notes, fetched.url);
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
    // A robots.txt still asking us to come back never said where the site answers (no redirect was seen).
    const confirmed = !askedToComeBack(fetched);
    return { origin, robots: readRobots(`${origin}/robots.txt`, fetched), failure: null, confirmed };
  }
  const failure =
    refused && !last?.timedOut
      ? { reason: refused, timedOut: false, refused: true }
      : { reason: last?.reason ?? "unreachable", timedOut: last?.timedOut ?? false };
  return { origin: null, robots: null, failure, confirmed: false };
}

/** The origin of `url` when it is another host of the same site (www or not), else null. */
export function sameSiteOrigin(url: string | undefined, domain: string): string | null {
  try {
    if (!url) return null;
    const host = new URL(url).hostname;
    return host === domain || host === `www.${domain}` ? new URL(url).origin : null;
  } catch {
    return null;
  }
}

/** Asks for a path no site has: a 200 means the site answers any path with a page (see soft-not-found.ts). */
export async function probeNotFound(
  env: Env,
  domain: string,
  origin: string,
  robots: Robots,
  budget: CrawlBudget,
  notes: CrawlNotes,
  pace: Pace,
): Promise<NotFoundPage | null> {
  const url = `${origin}${probePath()}`;
  const clock = clockOf(budget);
  // Under a stated allowance, only with room for it: pages come first.
  if (!robots.isAllowed(url) || spareAsks(pace, clock.now()) < 1) return null;
  const r = await askPaced(pace, clock.now, () =>
    fetchPage(url, env, {
      timeoutMs: budget.pageTimeoutMs,
      maxBytes: budget.maxBytesPerPage,
      now: clock.now,
      cookies: budget.cookies,
    }),
  );
  if (r.kind !== "ok" || r.status !== 200) return null;
  notes.softNotFound = true;
  return notFoundPage(await extractPage(r.body, r.url, domain, r.contentType), url);
}

export function urlCandidates(urls: readonly string[], floor = 0): Candidate[] {
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
export async function sitemapUrls(
  env: Env,
  domain: string,
  origin: string,
  declared: string[],
  budget: CrawlBudget,
  pace: Pace,
  maxChildren = 3,
): Promise<string[]> {
  const onSite = (u: string) => {
    try {
      const host = new URL(u).hostname;
      return host === domain || host.endsWith(`.${domain}`);
    } catch {
      return false;
    }
  };
  const own = declared.filter(onSite);
  // Without a declared sitemap /sitemap.xml is a guess: not worth an ask of a stated allowance.
  const roots = own.length ? own.slice(0, 3) : pace.allowance ? [] : [`${origin}/sitemap.xml`];
  const urls: string[] = [];
  const clock = clockOf(budget);
  const read = async (url: string) => {
    if (spareAsks(pace, clock.now()) < 1) return { urls: [], isIndex: false };
    const r = await askPaced(pace, clock.now, () =>
      fetchPage(url, env, {
        timeoutMs: budget.pageTimeoutMs,
        maxBytes: 2 * 1024 * 1024,
        now: clock.now,
        cookies: budget.cookies,
      }),
    );
    return r.kind === "ok" ? sitemapLocations(r.body) : { urls: [], isIndex: false };
  };
  const walk = async (url: string, depth: number): Promise<void> => {
    const doc = await read(url);
    if (!doc.isIndex) urls.push(...doc.urls);
    else if (depth < 2)
      await Promise.all(
        rankChildSitemaps(doc.urls.filter(onSite))
          .slice(0, maxChildren)
          .map((child) => walk(child, depth + 1)),
      );
  };
  await Promise.all(roots.map((root) => walk(root, 0)));
  return urls;
}
