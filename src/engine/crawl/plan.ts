/**
 * Which pages of a site are worth reading for contacts, in order. A URL's rank is the position of
 * the first keyword its path contains; lower is better. Pages without a keyword are not crawled.
 */
const KEYWORDS: RegExp[] = [
  /contact|kontakt|get-in-touch|reach-us/,
  /team|people|staff|mitarbeiter|our-people|who-we-are/,
  /leadership|management|founders|executives|board|geschaeftsleitung|gesch%c3%a4ftsleitung/,
  /about|ueber-uns|uber-uns|%c3%bcber-uns|company|unternehmen/,
  /imprint|impressum|legal-notice|mentions-legales|aviso-legal/,
  /press|presse|media|newsroom/,
  /careers|jobs|karriere|join-us|work-with-us/,
  /security\.txt|security/,
  /privacy|datenschutz|data-protection|gdpr/,
];

/** Paths tried even when no link points to them (sites often leave them out of the navigation). */
export const GUESSED_PATHS = [
  "/contact",
  "/team",
  "/about",
  "/impressum",
  "/imprint",
  "/people",
  "/leadership",
  "/staff",
  "/press",
  "/careers",
  "/privacy",
  "/.well-known/security.txt",
];

export function rankUrl(url: string): number | null {
  let path: string;
  try {
    const u = new URL(url);
    path = u.pathname.toLowerCase();
  } catch {
    return null;
  }
  if (path === "/" || path === "") return -1;
  if (/\.(pdf|jpe?g|png|gif|svg|webp|zip|css|js|mp4|mp3|docx?|xlsx?)$/.test(path)) return null;
  const i = KEYWORDS.findIndex((re) => re.test(path));
  if (i < 0) return null;
  // Shallow paths first within one keyword: /contact before /blog/2019/contact-us-post.
  return i * 10 + Math.min(9, path.split("/").filter(Boolean).length - 1);
}

/** Candidate URLs, ranked and de-duplicated, without the ones already done. */
export function rankCandidates(urls: Iterable<string>, done: ReadonlySet<string>): string[] {
  const seen = new Set<string>();
  const ranked: { url: string; rank: number }[] = [];
  for (const raw of urls) {
    const url = canonical(raw);
    if (!url || seen.has(url) || done.has(url)) continue;
    seen.add(url);
    const rank = rankUrl(url);
    if (rank !== null) ranked.push({ url, rank });
  }
  return ranked.sort((a, b) => a.rank - b.rank).map((r) => r.url);
}

/** One spelling per page: no fragment, no trailing slash (except the root), no tracking query. */
export function canonical(raw: string): string | null {
  try {
    const u = new URL(raw);
    u.hash = "";
    for (const k of [...u.searchParams.keys()]) if (/^(utm_|fbclid|gclid|ref$)/.test(k)) u.searchParams.delete(k);
    if (u.pathname.length > 1) u.pathname = u.pathname.replace(/\/+$/, "");
    return u.href;
  } catch {
    return null;
  }
}

/** `<loc>` URLs of a sitemap (or sitemap index) document. */
export function sitemapLocations(xml: string): { urls: string[]; isIndex: boolean } {
  const isIndex = /<sitemapindex[\s>]/i.test(xml);
  const urls = [...xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?\s*([^<\]\s]+)\s*(?:\]\]>)?\s*<\/loc>/gi)].map((m) =>
    m[1]!.replace(/&amp;/g, "&"),
  );
  return { urls, isIndex };
}
