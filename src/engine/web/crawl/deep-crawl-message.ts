// A leaf module (no imports) so that src/env.ts can type the CRAWL_QUEUE binding without an import cycle.

/** One deep crawl, queued by the first pass (deep-crawl-queue.ts). */
export interface DeepCrawlMessage {
  domain: string;
  /** URLs the first pass already tried. */
  done: string[];
  /** Ranked URLs the first pass had no budget for. */
  pending: string[];
}
