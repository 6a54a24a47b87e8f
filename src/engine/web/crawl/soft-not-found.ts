import type { PageExtraction } from "../extract/page.js";

/**
 * Sites that answer 200 with a page for any path ("soft 404s": a not-found page, or the home page
 * of a single-page app, served for every address). The crawler asks once per pass for a path no
 * site has; when that answers 200, the page it got is the site's not-found page, and a crawled page
 * that reads the same is not a page of the site: it is not kept and its links are not followed
 * (relative links on such pages lead to ever new addresses that all answer 200 again).
 */

/** A path no site has: a fixed prefix and a random token. */
export function probePath(): string {
  return `/ci-not-a-page-${crypto.randomUUID().slice(0, 13)}`;
}

export interface NotFoundPage {
  lines: Set<string>;
}

/** The page's text lines, without the lines that repeat the address asked for ("/about/xyz was not found"). */
function linesOf(extraction: Pick<PageExtraction, "lines">, url: string): Set<string> {
  let path = "";
  try {
    path = decodeURIComponent(new URL(url).pathname).replace(/\/+$/, "");
  } catch {
    /* keep every line */
  }
  const echoes = (line: string) => path.length > 1 && line.includes(path);
  return new Set(extraction.lines.filter((line) => !echoes(line)));
}

export function notFoundPage(extraction: Pick<PageExtraction, "lines">, probeUrl: string): NotFoundPage {
  return { lines: linesOf(extraction, probeUrl) };
}

/** Whether a page fetched at `url` is the site's not-found page again: nine in ten of its lines the same. */
export function isNotFoundPage(
  extraction: Pick<PageExtraction, "lines">,
  url: string,
  notFound: NotFoundPage,
): boolean {
  const lines = linesOf(extraction, url);
  const size = Math.max(lines.size, notFound.lines.size);
  if (size === 0) return true;
  let shared = 0;
  for (const line of lines) if (notFound.lines.has(line)) shared++;
  return shared / size >= 0.9;
}
