import { getDomain } from "tldts";
import type { Env } from "../../env.js";
import { CATEGORIES, FINGERPRINTS, type Fingerprint } from "../data/technology-fingerprints.js";
import { detectMailProvider, resolveMx, resolveTxt } from "../dns/resolver.js";
import { SiteFailed } from "../errors.js";
import { EgressError, guardedFetch } from "../web/egress.js";
import { fetchPage } from "../web/fetch-page.js";
import { readRobots } from "../web/robots.js";

/**
 * Technologies a domain visibly uses, from evidence anyone can check: the home page's response
 * headers, HTML and script URLs, and the domain's DNS (MX provider, SPF `include:` mechanisms,
 * ownership-verification TXT records). A technology is listed only when one of its fingerprints
 * matched; nothing is inferred from industry or size.
 */

export interface Evidence {
  headers: Headers | null;
  html: string | null;
  mxProvider: string | null;
  txt: string[];
}

const META_RE = /<meta\s[^>]*>/gi;
const SCRIPT_SRC_RE = /<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi;
const attr = (tag: string, name: string) => new RegExp(`\\b${name}\\s*=\\s*["']([^"']*)["']`, "i").exec(tag)?.[1];

/** SPF include: targets of the apex's v=spf1 records. */
export function spfIncludes(txt: readonly string[]): string[] {
  return txt
    .filter((t) => /^v=spf1\b/i.test(t.trim()))
    .flatMap((t) =>
      [...t.matchAll(/\binclude:([^\s]+)/gi)].map(([, host = ""]) => host.toLowerCase().replace(/\.$/, "")),
    );
}

/** Every fingerprint that matched some of the evidence. */
export function matchFingerprints(ev: Evidence, fingerprints: readonly Fingerprint[] = FINGERPRINTS): Fingerprint[] {
  const metas = new Map<string, string>();
  const scripts: string[] = [];
  if (ev.html) {
    for (const tag of ev.html.match(META_RE) ?? []) {
      const name = (attr(tag, "name") ?? attr(tag, "property"))?.toLowerCase();
      const content = attr(tag, "content");
      if (name && content !== undefined && !metas.has(name)) metas.set(name, content);
    }
    for (const [, src = ""] of ev.html.matchAll(SCRIPT_SRC_RE)) scripts.push(src);
  }
  const includes = spfIncludes(ev.txt);
  return fingerprints.filter((f) => {
    if (
      f.headers &&
      Object.entries(f.headers).some(([h, re]) => {
        const value = ev.headers?.get(h);
        return value !== null && value !== undefined && re.test(value);
      })
    )
      return true;
    if (
      f.meta &&
      Object.entries(f.meta).some(([n, re]) => {
        const content = metas.get(n);
        return content !== undefined && re.test(content);
      })
    )
      return true;
    const { html } = ev;
    if (f.html && html && f.html.some((re) => re.test(html))) return true;
    if (f.scripts?.some((re) => scripts.some((s) => re.test(s)))) return true;
    if (f.spf?.some((d) => includes.some((i) => i === d || i.endsWith(`.${d}`)))) return true;
    if (f.txt?.some((re) => ev.txt.some((t) => re.test(t.trim())))) return true;
    if (f.mx && ev.mxProvider && f.mx.includes(ev.mxProvider)) return true;
    return false;
  });
}

export function technologyItem(f: Fingerprint) {
  return {
    slug: f.slug,
    name: f.name,
    // No icon set is shipped; null rather than a URL that may not exist.
    icon: null,
    website: f.website,
    categories: f.categories.map((c) => CATEGORIES[c]),
  };
}

const MAX_HTML = 1_500_000;

/**
 * The home page with its headers; null when the site cannot be reached (network error or 5xx).
 * robots.txt is honoured like the crawler does: a home page it disallows is not read (the
 * headers of the robots.txt answer still count), and an unreachable robots.txt means unreachable.
 * Both go through the egress guard: every hop's addresses checked, at most MAX_HTML bytes read.
 * A host the guard refuses (private address) throws EgressError, which the HTTP layer answers 422.
 */
async function fetchHome(env: Env, domain: string): Promise<{ headers: Headers; html: string } | null> {
  const robotsUrl = `https://${domain}/robots.txt`;
  const robots = await fetchPage(robotsUrl, env, { timeoutMs: 6_000, maxBytes: 512 * 1024 });
  if (robots.kind === "unusable" && robots.refused) throw new EgressError("refused", robots.url, robots.reason);
  if (robots.kind === "unreachable") return null;
  if (!readRobots(robotsUrl, robots).isAllowed(`https://${domain}/`)) return { headers: new Headers(), html: "" };
  try {
    const res = await guardedFetch(env, `https://${domain}/`, {
      timeoutMs: 8_000,
      maxBytes: MAX_HTML,
      accept: /^(text\/html|application\/xhtml\+xml)|^$/i,
      site: getDomain(domain) ?? domain,
    });
    if (res.status >= 500) return null;
    // A redirect off the site ends here: its headers still say something about the stack.
    return { headers: res.headers, html: res.text() };
  } catch (err) {
    if (err instanceof EgressError && err.kind !== "refused") return null;
    if (err instanceof EgressError && /^leaves /.test(err.reason)) return { headers: new Headers(), html: "" };
    throw err;
  }
}

/**
 * Technologies of a domain. 404-like: a domain that does not exist answers null. A site that
 * cannot be reached is a 502 (an answer from DNS alone would look complete while missing the site).
 */
export async function detectTechnologies(env: Env, domain: string) {
  const [mx, txt, home] = await Promise.all([resolveMx(env, domain), resolveTxt(env, domain), fetchHome(env, domain)]);
  if (mx.nxdomain && txt.nxdomain) return null;
  if (!home)
    throw new SiteFailed(
      "unreachable",
      `The site of ${domain} could not be reached, so nothing was charged. Try again later.`,
    );
  const matched = matchFingerprints({
    headers: home.headers,
    html: home.html,
    mxProvider: detectMailProvider(mx.records.map((r) => r.exchange)),
    txt: txt.records,
  });
  return matched.map(technologyItem).sort((a, b) => a.name.localeCompare(b.name));
}
