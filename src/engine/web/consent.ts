/**
 * Consent walls: a site that sends every visitor to a consent page first ("Before you continue")
 * whose accept link sets a cookie and sends the visitor back. When a page we asked for ended on
 * another page of the site that offers such a link, the link is followed once with the pass's
 * cookies (cookies.ts), and the page it leads back to is read. A consent banner on the page itself
 * needs nothing: its text and its vendor's addresses are read like any other (another domain's
 * addresses are never the site's).
 */

/** Link words that accept cookies, in the languages the crawler reads. */
const ACCEPT =
  /\b(?:accept|agree|allow|akzeptieren|zustimmen|einverstanden|alle erlauben|accepter|j'accepte|aceptar|acepto|accetta|accetto|aceitar|accepteren|akkoord|zaakceptuj|akceptuj|godkänn|acceptera|godta|hyväksy|elfogad|kabul)|принять|согласен|同意|동의/i;
/** Where an accept link leads: a consent, cookie or privacy handler (never an ordinary page). */
const CONSENT_TARGET = /consent|cookie|gdpr|dsgvo|privacy|einwilligung|datenschutz/i;
const LINK = /<a\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi;

const entities = (s: string) =>
  s
    .replace(/&amp;/g, "&")
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)));

/**
 * The accept link of a consent page we were sent to instead of `asked` (null when the answer is the
 * page asked for, or offers no such link on the same site).
 */
export function consentAcceptLink(asked: string, answered: string, html: string): string | null {
  let from: URL;
  let to: URL;
  try {
    from = new URL(asked);
    to = new URL(answered);
  } catch {
    return null;
  }
  const path = (u: URL) => u.pathname.replace(/\/+$/, "") || "/";
  if (path(from) === path(to) && from.search === to.search) return null;
  for (const m of html.matchAll(LINK)) {
    const href = entities(m[1] ?? m[2] ?? m[3] ?? "");
    const text = entities((m[4] ?? "").replace(/<[^>]+>/g, " ")).trim();
    if (!ACCEPT.test(text) || !CONSENT_TARGET.test(href)) continue;
    try {
      const target = new URL(href, to);
      if (target.host === to.host && target.href !== to.href) return target.href;
    } catch {
      // not a URL
    }
  }
  return null;
}
