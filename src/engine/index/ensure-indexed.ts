import { eq } from "drizzle-orm";
import { parse } from "tldts";
import { domains } from "../../db/schema-index.js";
import { indexFor } from "../../db/shards.js";
import { type Env, isProduction } from "../../env.js";
import { isDisposableDomain, isWebmailDomain } from "../data/domain-lists.js";
import { resolveA } from "../dns/resolver.js";
import { InvalidInput, NotAllowed, NotFound, SiteFailed } from "../errors.js";
import { crawlFirstPass, describeCrawl } from "../web/crawl/crawler.js";
import { enqueueDeepCrawl } from "../web/crawl/deep-crawl-queue.js";
import { isAllowedAddress } from "../web/ip-ranges.js";
import { markCrawlFailed, storeCrawl } from "./store.js";

/** An index older than this is re-crawled on the next request that needs it. */
export const STALE_AFTER_MS = 30 * 86_400_000;
/** A site that could not be read is not hammered: the failure is repeated for this long. */
export const FAILED_RETRY_AFTER_MS = 10 * 60_000;

/**
 * The registrable domain a user means by "domain" input ("https://www.Acme.com/about" → "acme.com").
 * Throws 400 for text that is not a domain.
 */
export function normaliseDomainInput(input: string, param = "domain"): string {
  const raw = input.trim().toLowerCase();
  const info = parse(raw.includes("/") || raw.includes(":") ? raw : `https://${raw}`);
  if (!info.domain || info.isIp || !info.hostname?.includes(".")) {
    throw new InvalidInput(
      param,
      `The parameter '${param}' is invalid: "${input.slice(0, 100)}" is not a domain name.`,
    );
  }
  return info.domain;
}

export interface IndexState {
  domain: string;
  /** True when this request crawled the site itself (the `live` flag of domain-search's meta). */
  live: boolean;
  status: string;
  crawledAt: number | null;
}

interface Ctx {
  env: Env;
  now: () => number;
  waitUntil(p: Promise<unknown>): void;
}

/**
 * Makes sure the index holds a recent crawl of `domain`. When it does not, the bounded first pass
 * runs now and the deep pass is queued. A site or DNS that cannot be reached is an error (502, 503
 * or 504), never an empty answer; a domain that does not exist is a 422.
 */
export async function ensureIndexed(ctx: Ctx, domain: string): Promise<IndexState> {
  const { env } = ctx;
  const now = ctx.now();
  // Webmail and throwaway providers publish no one's address: nothing to crawl.
  if (isWebmailDomain(domain) || isDisposableDomain(domain))
    return { domain, live: false, status: "skipped", crawledAt: null };
  const row = await (await indexFor(env, domain)).select().from(domains).where(eq(domains.domain, domain)).get();
  const age = row?.crawledAt != null ? now - row.crawledAt : Infinity;
  if (row && (row.crawlStatus === "done" || row.crawlStatus === "crawling") && age < STALE_AFTER_MS) {
    return { domain, live: false, status: row.crawlStatus, crawledAt: row.crawledAt };
  }
  if (row?.crawlStatus === "failed" && age < FAILED_RETRY_AFTER_MS) {
    throw unreachable(domain, row.lastError ?? "unreachable", false);
  }

  await assertDomainResolves(env, domain);
  const outcome = await crawlFirstPass(env, domain);
  if (!outcome.origin) {
    const reason = outcome.failure?.reason ?? "unreachable";
    if (outcome.failure?.refused) {
      throw new NotAllowed(`The website of ${domain} is not crawled: ${reason}.`);
    }
    await markCrawlFailed(env, domain, reason, now);
    throw unreachable(domain, reason, outcome.failure?.timedOut ?? false);
  }
  await storeCrawl(env, { domain, pages: outcome.pages, status: "crawling", error: describeCrawl(outcome), now });
  const { done, pending, pendingScores, retry, challengedOnce, lang, origin, allowance } = outcome;
  await enqueueDeepCrawl(
    env,
    { domain, done, pending, pendingScores, retry, challengedOnce, origin, allowance, ...(lang ? { lang } : {}) },
    ctx.waitUntil,
  );
  return { domain, live: true, status: "crawling", crawledAt: now };
}

function unreachable(domain: string, reason: string, timedOut: boolean): SiteFailed {
  return timedOut
    ? new SiteFailed(
        "timeout",
        `The website of ${domain} did not answer in time (${reason}); nothing was charged. Try again later.`,
      )
    : new SiteFailed(
        "unreachable",
        `The website of ${domain} could not be reached (${reason}); nothing was charged. Try again later.`,
        600,
      );
}

/** The domain (or its www host) must have an address; DNS failures surface as 503 dns_unavailable. */
async function assertDomainResolves(env: Env, domain: string): Promise<void> {
  const apex = await resolveA(env, domain);
  const records = apex.records.length ? apex.records : (await resolveA(env, `www.${domain}`)).records;
  if (records.length === 0) {
    if (apex.nxdomain) throw new NotFound("domain", `The domain ${domain} does not exist (DNS answers NXDOMAIN).`);
    throw new SiteFailed(
      "unreachable",
      `The domain ${domain} has no web server address (no A record), so its pages cannot be read.`,
    );
  }
  // The crawler checks every host and hop again (A and AAAA); this is the early, clear answer.
  if (records.some((r) => !isAllowedAddress(r, isProduction(env)))) {
    throw new NotAllowed(`The domain ${domain} points to a private network address and is not crawled.`);
  }
}
