// A leaf module (no imports) so that src/env.ts can type the CRAWL_QUEUE binding without an import cycle,
// and src/index.ts can name the queue without evaluating the crawler at startup.

/** Queue carrying deep crawls off the request path (wrangler.toml: queue "crawl-deep" + its dead-letter queue). */
export const DEEP_CRAWL_QUEUE = "crawl-deep";

/** One deep crawl, queued by the first pass (deep-crawl-queue.ts). */
export interface DeepCrawlMessage {
  domain: string;
  /** URLs the first pass already tried. */
  done: string[];
  /** Ranked URLs the first pass had no budget for, best first. */
  pending: string[];
  /** Their ranks (same order); a message may carry none (its URLs are then ranked by address). */
  pendingScores?: number[];
  /** Pages the first pass could not read for now (429, 5xx, network, time) or cut at its byte limit. */
  retry?: string[];
  /** Of `retry`, pages asked once while challenged: the deep pass may ask them twice (three asks in all). */
  challengedOnce?: string[];
  /** The language the site's pages declared in the first pass (names on pages declaring none are read in it). */
  lang?: string;
  /** Where the first pass found the site (its scheme and host): the deep pass asks robots.txt there first. */
  origin?: string;
  /** What the site's rate-limit fields said at the end of the first pass (its reset in epoch milliseconds). */
  allowance?: { remaining: number; resetAt: number | null; limit: number | null };
  /** D1 bookmarks of the first pass's writes, by index database: the deep pass reads from there on. */
  bookmarks?: Record<string, string>;
}
