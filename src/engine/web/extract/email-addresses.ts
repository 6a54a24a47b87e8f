import { getDomain } from "tldts";
import {
  AT_WORDS,
  DOT_WORDS,
  NAMED_ENTITIES,
  PLACEHOLDER_DOMAINS,
  PLACEHOLDER_LOCALS,
} from "../../data/address-words.js";
import { placeholderFormat } from "../../finder/stated-format.js";

/**
 * Finding email addresses in page text: entity decoding, de-obfuscation, Cloudflare email
 * protection, and the filters that keep only real addresses of the target's registrable domain.
 */

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

const AT_WORD = `(?:${[...AT_WORDS, "@", "a"].join("|")})`;
const DOT_WORD = `(?:${[...DOT_WORDS, "\\."].join("|")})`;
const bracketed = (word: string, dashed: string) =>
  new RegExp(
    `\\s*(?:\\[\\s*${word}\\s*\\]|\\(\\s*${word}\\s*\\)|（\\s*${word}\\s*）|［\\s*${word}\\s*］|【\\s*${word}\\s*】|\\{\\s*${word}\\s*\\}|<\\s*${word}\\s*>|-${dashed}-|_${dashed}_)\\s*`,
    "giu",
  );
// "-at-" and "_dot_" are trusted only for the whole words: "-a-" is common inside real local parts.
const AT_BRACKETED = bracketed(AT_WORD, "(?:at|arroba)");
const DOT_BRACKETED = bracketed(DOT_WORD, "(?:dot|punkt|punto)");
const LOCAL = "[a-z0-9][a-z0-9._%+-]*";
const LABEL = "[a-z0-9](?:[a-z0-9-]*[a-z0-9])?";
const NOT_AFTER_WORD = "(?<![\\p{L}\\p{N}._%+-])";
const NOT_BEFORE_WORD = "(?![\\p{L}\\p{N}])";
const SPELLED_DOT = `\\s+(?:${DOT_WORDS.join("|")})\\s+`;
/**
 * The bare " at " form is only trusted when the domain is written with a spelled "dot" as well
 * ("jane dot doe at acme dot com", "jan punt de vries apenstaartje firma punt nl"): a plain " at "
 * before a real domain is ordinary prose ("find us at acme.com"). The local part may spell its
 * dots too.
 */
const SPELLED_OUT = new RegExp(
  `${NOT_AFTER_WORD}(${LOCAL}(?:${SPELLED_DOT}${LOCAL})*)\\s+(?:${AT_WORDS.join("|")})\\s+(${LABEL}(?:${SPELLED_DOT}${LABEL})+)${NOT_BEFORE_WORD}`,
  "giu",
);
const SPELLED_DOTS = new RegExp(SPELLED_DOT, "giu");
const HAS_SPELLED_DOT = new RegExp(SPELLED_DOT, "iu");
/** "max punkt muster@firma punkt de": an @ already read (from "(at)"), the dots still spelled. */
const SPELLED_AROUND_AT = new RegExp(
  `${NOT_AFTER_WORD}(${LOCAL}(?:${SPELLED_DOT}${LOCAL})*)@(${LABEL}(?:(?:${SPELLED_DOT}|\\.)${LABEL})+)${NOT_BEFORE_WORD}`,
  "giu",
);
/** An upper-case " AT " is deliberate ("jane AT acme.com"), unlike the prose " at ". */
const UPPER_AT = new RegExp(`\\b(${LOCAL})\\s+AT\\s+((?:${LABEL}\\.)+[a-z]{2,24})\\b`, "g");
/** "jane.doe at acme.com": an " at " after a local part with a dot, dash or underscore in it, before a domain. */
const DOTTED_LOCAL_AT = new RegExp(
  `${NOT_AFTER_WORD}([a-z][a-z0-9]*[._-][a-z0-9._-]*[a-z0-9])\\s+at\\s+((?:${LABEL}\\.)+[a-z]{2,24})${NOT_BEFORE_WORD}`,
  "gu",
);
/** Japanese sites replace @ with a star and ask the reader to swap it back ("info★acme.co.jp（★を@に）"). */
const STAR_AT = /([a-z0-9._%+-])\s?[★☆]\s?([a-z0-9])/gi;
/** "@" and "." as words in CJK scripts, between the Latin parts of an address ("tanaka アットマーク acme ドット jp"). */
const CJK_AT =
  /([a-z0-9._%+-])\s*(?:[(（［【]\s*)?(?:アットマーク|あっとまーく|＠マーク|艾特|골뱅이)(?:\s*[)）］】])?\s*([a-z0-9])/gi;
const CJK_DOT = /([a-z0-9])\s*(?:[(（［【]\s*)?(?:ドット|どっと|點|点|닷|쩜)(?:\s*[)）］】])?\s*([a-z0-9])/gi;
/** "jane#acme.com（请把#换成@）": a sign the page says to replace with @. */
const SWAP_NOTE = /([#*＃※■●◆])[^@＠]{0,12}[@＠]/u;

/** Rewrites the common human-readable obfuscations into plain addresses. */
export function deobfuscate(text: string): string {
  let out = text
    .replace(/[＠﹫]/g, "@")
    .replace(/．/g, ".")
    .replace(STAR_AT, "$1@$2");
  const swap = SWAP_NOTE.exec(out)?.[1];
  if (swap) out = out.replace(new RegExp(`([a-z0-9._%+-])\\s?\\${swap}\\s?([a-z0-9])`, "gi"), "$1@$2");
  if (/アットマーク|あっとまーく|＠マーク|艾特|골뱅이/.test(out))
    out = out.replace(CJK_AT, "$1@$2").replace(CJK_DOT, "$1.$2");
  return (
    out
      .replace(AT_BRACKETED, "@")
      .replace(DOT_BRACKETED, ".")
      .replace(UPPER_AT, "$1@$2")
      .replace(
        SPELLED_OUT,
        (_w, local: string, domain: string) =>
          `${local.replace(SPELLED_DOTS, ".")}@${domain.replace(SPELLED_DOTS, ".")}`,
      )
      .replace(SPELLED_AROUND_AT, (w, local: string, domain: string) =>
        HAS_SPELLED_DOT.test(w) ? `${local.replace(SPELLED_DOTS, ".")}@${domain.replace(SPELLED_DOTS, ".")}` : w,
      )
      .replace(DOTTED_LOCAL_AT, "$1@$2")
      // "jane.doe @ acme.com": spaces around a real @, trusted only when the left side reads like an
      // address (a dot, dash, underscore or digit in it): "Tickets @ shop.acme.com" is a sign, not a mailbox.
      .replace(/(?<![a-z0-9._%+-])([a-z0-9]+[._-][a-z0-9._-]*[a-z0-9]|[a-z]+\d+)\s+@\s+([a-z0-9])/gi, "$1@$2")
  );
}

const MAY_HOLD = new RegExp(
  `[@＠﹫★☆]|アットマーク|あっとまーく|艾特|골뱅이|(?<![\\p{L}])(?:${[...AT_WORDS, "AT"].join("|")})(?![\\p{L}])|[(\\[{（［【]\\s*a\\s*[)\\]}）］】]`,
  "iu",
);

/** Whether a line may hold an address in any of the spellings `deobfuscate` knows (a cheap pre-filter). */
export function mayHoldAddress(line: string): boolean {
  return MAY_HOLD.test(line);
}

// Never the tail of a word in an accented Latin spelling: "prénom.nom@acme.fr" is no address of "nom";
// nor the host part of a fediverse handle ("@jane@social.acme.de" is an account, not a mailbox).
const ADDRESS = new RegExp(`(?<![\\p{Script=Latin}\\p{N}._%+@-])${LOCAL}@(?:${LABEL}\\.)+[a-z]{2,24}`, "giu");

/** Addresses in text after decoding and de-obfuscation, with their offset in the decoded text. */
export function scanAddresses(text: string): { email: string; index: number; example: boolean }[] {
  const clean = deobfuscate(decodeEntities(text));
  return [...clean.matchAll(ADDRESS)].map((m) => ({
    email: m[0],
    index: m.index ?? 0,
    example: EXAMPLE_BEFORE.test(clean.slice(Math.max(0, (m.index ?? 0) - 24), m.index)),
  }));
}

/**
 * "e.g." and its kin right before an address: the address illustrates a convention ("firstname.
 * lastname@acme.jp (例: taro.yamada@acme.jp)", "z. B. max@…") and is nobody's mailbox.
 */
const EXAMPLE_BEFORE = new RegExp(
  `(?:${[
    "e\\.\\s?g\\.",
    "for example",
    "for instance",
    "such as",
    "z\\.\\s?b\\.",
    "zum beispiel",
    "beispielsweise",
    "beispiel",
    "p\\.\\s?ex\\.",
    "par exemple",
    "exemple",
    "p\\.\\s?ej\\.",
    "por ejemplo",
    "ejemplo",
    "por exemplo",
    "exemplo",
    "ex\\.",
    "per esempio",
    "ad esempio",
    "ad es\\.",
    "esempio",
    "bijv\\.",
    "bijvoorbeeld",
    "bv\\.",
    "np\\.",
    "na przyk[łl]ad",
    "örn\\.",
    "örneğin",
    "t\\.\\s?ex\\.",
    "till exempel",
    "f\\.\\s?eks\\.",
    "for eksempel",
    "esim\\.",
    "esimerkiksi",
    "pl\\.",
    "például",
    "ví dụ",
    "例えば",
    "例",
    "例如",
    "比如",
    "如",
    "например",
    "напр\\.",
    "к примеру",
    "пример",
    "(?<![\\p{Script=Hangul}])예",
    "예시",
    "예를 들어",
    // Arabic, Hebrew and Thai: "for example", "e.g.", "such as".
    "على سبيل المثال",
    "مثلًا",
    "مثلاً",
    "مثلا",
    "مثال",
    "לדוגמה",
    "לדוגמא",
    "למשל",
    "ตัวอย่างเช่น",
    "ตัวอย่าง",
    "เช่น",
  ].join("|")})\\s*[:：]?\\s*["'“„«(]?\\s*$`,
  "iu",
);

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

/**
 * Addresses in a `mailto:` href: several recipients may be comma- or semicolon-separated, and the
 * query may name more (`to=`, `cc=`, `bcc=`); `subject=` and `body=` are not addresses.
 */
export function mailtoAddresses(href: string): string[] {
  const raw = decodeEntities(href).replace(/^\s*mailto:/i, "");
  const q = raw.indexOf("?");
  const parts = [q < 0 ? raw : raw.slice(0, q)];
  if (q >= 0) {
    for (const pair of raw.slice(q + 1).split("&")) {
      const eq = pair.indexOf("=");
      if (eq > 0 && /^(to|cc|bcc)$/i.test(pair.slice(0, eq).trim())) parts.push(pair.slice(eq + 1));
    }
  }
  return parts.flatMap((part) => {
    let decoded = part;
    try {
      decoded = decodeURIComponent(part.replace(/\+/g, "%2B"));
    } catch {
      /* keep the raw text; the address filter decides */
    }
    return decoded
      .split(/[,;]/)
      .map((a) => a.trim())
      .filter(Boolean);
  });
}

const ASSET_SUFFIX =
  /\.(png|jpe?g|gif|svg|webp|avif|ico|bmp|tiff?|css|js|mjs|json|xml|woff2?|ttf|eot|mp4|webm|mp3|pdf|zip)$/i;
/** Error trackers embed DSNs such as `https://<32 hex>@o123.ingest.sentry.io/1`. */
const TRACKER_DOMAIN =
  /(^|\.)(sentry\.io|sentry-cdn\.com|ingest\.sentry\.io|bugsnag\.com|rollbar\.com|wixpress\.com)$/i;
const HEX_KEY = /^[0-9a-f]{24,}$/i;

/**
 * The normalised (lowercase) address when it is a real address of `targetDomain` (compared by
 * registrable domain, so jobs@careers.acme.com counts for acme.com); null for asset names,
 * placeholders, tracker DSNs and other domains.
 */
export function acceptAddress(raw: string, targetDomain: string): string | null {
  const email = raw
    .trim()
    .replace(/^[.'"<(]+|[.'">),;:]+$/g, "")
    .toLowerCase();
  const at = email.lastIndexOf("@");
  if (at < 1) return null;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.length > 64 || email.length > 254 || local.startsWith(".") || local.endsWith(".") || local.includes(".."))
    return null;
  if (ASSET_SUFFIX.test(email) || /@\d+x\./.test(email)) return null;
  if (PLACEHOLDER_DOMAINS.has(domain) || PLACEHOLDER_LOCALS.has(local) || placeholderFormat(local) !== null)
    return null;
  if (TRACKER_DOMAIN.test(domain) || HEX_KEY.test(local)) return null;
  if (getDomain(domain) !== targetDomain) return null;
  return email;
}
