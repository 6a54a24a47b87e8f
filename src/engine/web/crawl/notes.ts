/**
 * What a site's defences and failures did to one crawl pass, kept with the crawl (the domain's
 * crawl note, `domains.last_error`) so that an answer with few addresses can be explained.
 */
export interface CrawlNotes {
  /** The site answers 200 with a page for a path it cannot have (soft 404s). */
  softNotFound: boolean;
  /** Pages dropped because they were the site's not-found page again. */
  notFoundPages: number;
  /** Pages (the first 10) that answered with a bot challenge: asked again once a pass at most (crawler.ts), three asks over both passes. */
  challenged: string[];
  /** Transient failures (429, 5xx, network) retried in this pass, and how many of them then answered. */
  retried: number;
  recovered: number;
  /** Pages that failed again after their retry (the first 10). */
  stillFailing: string[];
  /** PDF documents read, and those that could not be read (damaged, cut at the size cap, encrypted). */
  documents: number;
  unreadableDocuments: string[];
}

const LISTED = 10;

export function emptyNotes(): CrawlNotes {
  return {
    softNotFound: false,
    notFoundPages: 0,
    challenged: [],
    retried: 0,
    recovered: 0,
    stillFailing: [],
    documents: 0,
    unreadableDocuments: [],
  };
}

export function noteChallenge(notes: CrawlNotes, url: string): void {
  if (notes.challenged.length < LISTED && !notes.challenged.includes(url)) notes.challenged.push(url);
}

export function noteStillFailing(notes: CrawlNotes, url: string): void {
  if (notes.stillFailing.length < LISTED) notes.stillFailing.push(url);
}

/**
 * One line for the crawl record: the failure that ended the pass, if any, then what the site did
 * ("bot challenge on 3 pages; soft 404s: any path answers 200 (2 pages dropped); …").
 * Null when there is nothing to say.
 */
export function describeCrawl(outcome: { failure: { reason: string } | null; notes: CrawlNotes }): string | null {
  const n = outcome.notes;
  const parts: string[] = [];
  if (outcome.failure) parts.push(outcome.failure.reason);
  if (n.challenged.length)
    parts.push(
      `bot challenge on ${n.challenged.length}${n.challenged.length >= LISTED ? "+" : ""} page(s) (${n.challenged[0]})`,
    );
  if (n.softNotFound)
    parts.push(
      `soft 404s: any path answers 200${n.notFoundPages ? ` (${n.notFoundPages} page(s) dropped as the not-found page)` : ""}`,
    );
  if (n.retried)
    parts.push(
      `${n.retried} transient failure(s) retried, ${n.recovered} recovered${n.stillFailing.length ? `, still failing: ${n.stillFailing.join(" ")}` : ""}`,
    );
  if (n.unreadableDocuments.length) parts.push(`unreadable PDF(s): ${n.unreadableDocuments.join(" ")}`);
  return parts.length ? parts.join("; ").slice(0, 1000) : null;
}
