import robotsParser from "robots-parser";
import type { PageFetch } from "./fetch-page.js";

/** The token robots.txt rules are matched against. */
export const ROBOTS_AGENT = "ContactIntelligenceBot";

/** What a site's robots.txt lets this service read, and the sitemaps it names. */
export interface Robots {
  isAllowed(url: string): boolean;
  sitemaps: string[];
}

/**
 * The rules of a fetched robots.txt. An answer that is not a readable file (4xx) sets no rules
 * (RFC 9309 §2.3.1.3); an unreachable one (network error, 5xx) means "read nothing", which the
 * caller decides before asking here, since it also says the site is down.
 */
export function readRobots(robotsUrl: string, fetched: PageFetch): Robots {
  if (fetched.kind !== "ok") return { isAllowed: () => true, sitemaps: [] };
  const parsed = robotsParser(robotsUrl, fetched.body);
  return { isAllowed: (url) => parsed.isAllowed(url, ROBOTS_AGENT) !== false, sitemaps: parsed.getSitemaps() };
}
