// The budgets of the crawler's two passes (pages, bytes, time, concurrency, retries, documents)
// and the clock a pass keeps time by.
import type { CookieJar } from "../cookies.js";
import type { RetryPolicy } from "./retry.js";

export interface CrawlBudget {
  maxPages: number;
  maxBytesPerPage: number;
  /** Wall time for the whole pass. */
  totalMs: number;
  pageTimeoutMs: number;
  concurrency: number;
  /** When a failed page is tried once more in this pass (retry.ts). */
  retry: RetryPolicy;
  /** Documents (PDF, .docx, .xlsx) read in this pass (deep pass only): how many, their size cap and the pages read of each. */
  documents: { max: number; maxBytes: number; maxPages: number } | null;
  /**
   * Pages of `maxPages` that pages ranked below LOW_RANK (guessed paths, articles, navigation in
   * unknown words) leave unasked while a page is still out or waiting for its retry: kept for the
   * pages it may lead to (a team listing found late, its next pages). 0: none kept.
   */
  lateReserve: number;
  /** The pass's clock (the real one unless a test passes a virtual one, so waits cost no wall time). */
  clock?: CrawlClock;
  /** The pass's cookies (set by the pass itself: one jar per pass of one site, see cookies.ts). */
  cookies?: CookieJar;
}

/** Time as a crawl pass sees it: when it is, and waiting (for a Retry-After, a pause, a time-out). */
export interface CrawlClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}
export const REAL_CLOCK: CrawlClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
export const clockOf = (budget: CrawlBudget) => budget.clock ?? REAL_CLOCK;

/**
 * On the request path: the home page, the sitemap and the best pages they lead to (team pages,
 * their next pages and profiles), quickly: about three rounds of parallel fetches. 24 pages let a
 * team listing with a dozen profile pages be read whole in the first answer (12 left most of
 * them to the deep pass: first-answer recall 84% on generated sites). A page answered
 * 429 or 503 is tried up to twice more when its Retry-After asks for at most 3 s and the pass's time
 * allows, else handed to the deep pass; a site-wide rate limit whose Retry-After leaves 2.5 s of the
 * pass is waited out (then one page at a time); a bot challenge is asked again after 2 s, then 4 s
 * (see runPass for the limits); documents (PDF, .docx, .xlsx) wait for the deep pass. One page may
 * take 9 s (team pages that answer in 6-8 s were cut at 6 s), never beyond the pass's 12 s.
 */
export const FIRST_PASS: CrawlBudget = {
  maxPages: 24,
  maxBytesPerPage: 512 * 1024,
  totalMs: 12_000,
  pageTimeoutMs: 9_000,
  concurrency: 8,
  retry: {
    maxWaitMs: 3_000,
    clamp: false,
    unasked: false,
    tries: 2,
    challengePauseMs: 2_000,
    challengeAsks: 3,
    waitOutLimitLeavingMs: 2_500,
  },
  documents: null,
  lateReserve: 4,
};
/**
 * Off the request path (queue consumer): the rest of the ranked pages, the sitemap, pages that
 * failed at first, PDFs. The last pass: a failure is retried once, a Retry-After cut to 10 s.
 */
export const DEEP_PASS: CrawlBudget = {
  maxPages: 25,
  maxBytesPerPage: 1024 * 1024,
  totalMs: 60_000,
  pageTimeoutMs: 10_000,
  concurrency: 4,
  retry: {
    maxWaitMs: 10_000,
    clamp: true,
    unasked: true,
    tries: 1,
    challengePauseMs: 1_000,
    challengeAsks: 2,
    waitOutLimitLeavingMs: 0,
  },
  documents: { max: 6, maxBytes: 5 * 1024 * 1024, maxPages: 30 },
  lateReserve: 0,
};
