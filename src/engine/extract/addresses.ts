import { getDomain } from "tldts";

/**
 * Finding email addresses in page text: entity decoding, de-obfuscation, Cloudflare email
 * protection, and the filters that keep only real addresses of the target's registrable domain.
 */

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", commat: "@", period: ".", dot: ".", at: "@",
  lbrack: "[", rbrack: "]", lsqb: "[", rsqb: "]", lpar: "(", rpar: ")", lcub: "{", rcub: "}", hyphen: "-", dash: "-",
  ndash: "–", mdash: "—", copy: "©", reg: "®", middot: "·", bull: "•", shy: "", zwnj: "", zwj: "", ensp: " ", emsp: " ",
  thinsp: " ", auml: "ä", ouml: "ö", uuml: "ü", Auml: "Ä", Ouml: "Ö", Uuml: "Ü", szlig: "ß", eacute: "é", egrave: "è",
  aacute: "á", iacute: "í", oacute: "ó", uacute: "ú", ccedil: "ç", ntilde: "ñ", oslash: "ø", Oslash: "Ø", aring: "å",
  aelig: "æ", rsquo: "’", lsquo: "‘", ldquo: "“", rdquo: "”", hellip: "…", plus: "+", lowbar: "_", num: "#",
};

/** HTMLRewriter hands text and attributes with entities still encoded (`&#64;`, `&amp;`). */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,10});?/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref] ?? NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

const AT_BRACKETED = /\s*(?:\[\s*at\s*\]|\(\s*at\s*\)|\{\s*at\s*\}|<\s*at\s*>|\[\s*@\s*\]|\(\s*@\s*\))\s*/gi;
const DOT_BRACKETED = /\s*(?:\[\s*dot\s*\]|\(\s*dot\s*\)|\{\s*dot\s*\}|<\s*dot\s*>|\[\s*\.\s*\]|\(\s*\.\s*\))\s*/gi;
const LOCAL = "[a-z0-9][a-z0-9._%+-]*";
const LABEL = "[a-z0-9](?:[a-z0-9-]*[a-z0-9])?";
/**
 * The bare " at " form is only trusted when the domain is written with " dot " as well
 * ("jane at acme dot com"): a plain " at " before a real domain is ordinary prose ("find us at acme.com").
 */
const SPELLED_OUT = new RegExp(`\\b(${LOCAL})\\s+at\\s+(${LABEL}(?:\\s+dot\\s+${LABEL})+)\\b`, "gi");

/** Rewrites the common human-readable obfuscations into plain addresses. */
export function deobfuscate(text: string): string {
  return text
    .replace(/[＠﹫]/g, "@")
    .replace(/．/g, ".")
    .replace(AT_BRACKETED, "@")
    .replace(DOT_BRACKETED, ".")
    .replace(SPELLED_OUT, (_w, local: string, domain: string) => `${local}@${domain.replace(/\s+dot\s+/gi, ".")}`);
}

const ADDRESS = new RegExp(`${LOCAL}@(?:${LABEL}\\.)+[a-z]{2,24}`, "gi");

/** Addresses in text after decoding and de-obfuscation, with their offset in the decoded text. */
export function scanAddresses(text: string): { email: string; index: number }[] {
  const clean = deobfuscate(decodeEntities(text));
  return [...clean.matchAll(ADDRESS)].map((m) => ({ email: m[0], index: m.index ?? 0 }));
}

/** Cloudflare email protection: the first byte is the key, every following byte is XORed with it. */
export function decodeCfEmail(hex: string): string | null {
  const clean = hex.trim();
  if (!/^(?:[0-9a-f]{2}){2,}$/i.test(clean)) return null;
  const key = parseInt(clean.slice(0, 2), 16);
  const bytes = new Uint8Array((clean.length - 2) / 2);
  for (let i = 2, j = 0; i < clean.length; i += 2, j++) bytes[j] = parseInt(clean.slice(i, i + 2), 16) ^ key;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

/** Addresses in a `mailto:` href: several may be comma-separated; `?subject=` and the like are dropped. */
export function mailtoAddresses(href: string): string[] {
  const body = decodeEntities(href).replace(/^\s*mailto:/i, "").split("?")[0] ?? "";
  let decoded = body;
  try {
    decoded = decodeURIComponent(body);
  } catch {
    /* keep the raw text; the address filter decides */
  }
  return decoded.split(/[,;]/).map((a) => a.trim()).filter(Boolean);
}

const ASSET_SUFFIX = /\.(png|jpe?g|gif|svg|webp|avif|ico|bmp|tiff?|css|js|mjs|json|xml|woff2?|ttf|eot|mp4|webm|mp3|pdf|zip)$/i;
const PLACEHOLDER_DOMAINS = new Set([
  "example.com", "example.org", "example.net", "example.de", "domain.com", "yourdomain.com", "your-domain.com", "email.com",
  "company.com", "yourcompany.com", "mysite.com", "website.com", "test.com", "sample.com", "mail.com",
]);
const PLACEHOLDER_LOCALS = new Set([
  "you", "your", "yourname", "your.name", "youremail", "your.email", "your-email", "your_email", "name", "email", "e-mail",
  "user", "username", "someone", "somebody", "firstname", "lastname", "firstname.lastname", "first.last", "first_last",
  "vorname.nachname", "max.mustermann", "mustermann", "john.doe", "jane.doe", "johndoe", "janedoe", "test",
  "xxx", "abc", "foo", "bar", "example",
]);
/** Error trackers embed DSNs such as `https://<32 hex>@o123.ingest.sentry.io/1`. */
const TRACKER_DOMAIN = /(^|\.)(sentry\.io|sentry-cdn\.com|ingest\.sentry\.io|bugsnag\.com|rollbar\.com|wixpress\.com)$/i;
const HEX_KEY = /^[0-9a-f]{24,}$/i;

/**
 * The normalised (lowercase) address when it is a real address of `targetDomain` (compared by
 * registrable domain, so jobs@careers.acme.com counts for acme.com); null for asset names,
 * placeholders, tracker DSNs and other domains.
 */
export function acceptAddress(raw: string, targetDomain: string): string | null {
  const email = raw.trim().replace(/^[.'"<(]+|[.'">),;:]+$/g, "").toLowerCase();
  const at = email.lastIndexOf("@");
  if (at < 1) return null;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.length > 64 || email.length > 254 || local.startsWith(".") || local.endsWith(".") || local.includes("..")) return null;
  if (ASSET_SUFFIX.test(email) || /@\d+x\./.test(email)) return null;
  if (PLACEHOLDER_DOMAINS.has(domain) || PLACEHOLDER_LOCALS.has(local)) return null;
  if (TRACKER_DOMAIN.test(domain) || HEX_KEY.test(local)) return null;
  if (getDomain(domain) !== targetDomain) return null;
  return email;
}
