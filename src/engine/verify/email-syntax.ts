import { run as suggestDomain } from "@zootools/email-spell-checker";
import { isWebmailDomain } from "../data/domain-lists.js";

/**
 * Practical address syntax: what RFC 5321 lets a mail server accept for delivery on the public
 * internet, with RFC 6531 (UTF-8 local parts) and IDNA domains. Stricter than RFC 5322 where
 * 5322 allows things no public mailbox uses (comments, folding whitespace, domain literals).
 */

export type SyntaxProblem =
  | "empty"
  | "no_at_sign"
  | "empty_local_part"
  | "local_part_too_long"
  | "address_too_long"
  | "bad_local_part"
  | "domain_literal"
  | "bad_domain";

export type ParsedEmail =
  | {
      ok: true;
      /** Local part as given (case kept: RFC 5321 lets the receiving server decide). */
      localPart: string;
      /** ASCII (punycode) lowercase domain: what DNS is asked about. */
      domain: string;
      /** Domain as the user wrote it, lowercased (Unicode when IDN). */
      domainUnicode: string;
      /** `local@asciidomain`, local part lowercased: the key for lists, claims and the index. */
      normalised: string;
    }
  | { ok: false; problem: SyntaxProblem; message: string };

const MAX_LOCAL_OCTETS = 64;
/** RFC 5321 path limit 256 minus the angle brackets. */
const MAX_ADDRESS_OCTETS = 254;
const MAX_DOMAIN_OCTETS = 253;

// atext (RFC 5322 §3.2.3) plus any non-ASCII character (RFC 6531 UTF8-non-ascii).
const ATEXT = "A-Za-z0-9!#$%&'*+/=?^_`{|}~\\-\\u0080-\\u{10FFFF}";
const DOT_ATOM = new RegExp(`^[${ATEXT}]+(?:\\.[${ATEXT}]+)*$`, "u");
// quoted-string without folding whitespace: printable ASCII except " and \, or a quoted pair.
const QUOTED = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

const utf8Length = (s: string) => new TextEncoder().encode(s).length;

function fail(problem: SyntaxProblem, message: string): ParsedEmail {
  return { ok: false, problem, message };
}

export function parseEmail(input: string): ParsedEmail {
  const email = input.trim().normalize("NFC");
  if (!email) return fail("empty", "The address is empty.");
  const at = email.lastIndexOf("@");
  if (at < 0) return fail("no_at_sign", "The address has no @.");
  const local = email.slice(0, at);
  const rawDomain = email.slice(at + 1);
  if (!local) return fail("empty_local_part", "Nothing comes before the @.");
  if (utf8Length(local) > MAX_LOCAL_OCTETS)
    return fail("local_part_too_long", `The part before the @ is longer than ${MAX_LOCAL_OCTETS} octets.`);
  if (!DOT_ATOM.test(local) && !QUOTED.test(local)) {
    return fail(
      "bad_local_part",
      "The part before the @ has characters or dots in places an address cannot have them.",
    );
  }
  if (rawDomain.startsWith("["))
    return fail("domain_literal", "Addresses at a bare IP address are not deliverable mailboxes.");

  const domainUnicode = rawDomain.toLowerCase().replace(/\.$/, "");
  const domain = toAsciiDomain(domainUnicode);
  if (!domain) return fail("bad_domain", "The domain is not a valid host name.");
  if (utf8Length(local) + 1 + domain.length > MAX_ADDRESS_OCTETS) {
    return fail("address_too_long", `The address is longer than ${MAX_ADDRESS_OCTETS} octets.`);
  }
  return { ok: true, localPart: local, domain, domainUnicode, normalised: `${local.toLowerCase()}@${domain}` };
}

/** A public host name in ASCII form (IDN labels punycoded), or null. Needs a dot and a non-numeric TLD. */
export function toAsciiDomain(domain: string): string | null {
  const d = domain.trim().toLowerCase().replace(/\.$/, "");
  if (!d || d.length > MAX_DOMAIN_OCTETS * 2) return null;
  let ascii = d;
  if (!/^[a-z0-9.-]+$/.test(d)) {
    // Characters a host can never hold would make the URL parser read a different host.
    if (/[\s/\\?#@:%[\]<>^|"`{}]/.test(d)) return null;
    try {
      // WHATWG URL applies UTS #46 (IDNA 2008 with transitional processing off).
      ascii = new URL(`http://${d}/`).hostname;
    } catch {
      return null;
    }
  }
  if (ascii.length > MAX_DOMAIN_OCTETS) return null;
  const labels = ascii.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  const tld = labels.at(-1) ?? "";
  if (/^\d+$/.test(tld) || tld.length < 2) return null;
  return ascii;
}

/**
 * "jane@gmial.com" -> "jane@gmail.com". Only suggestions that land on a known webmail provider are
 * kept: the spell checker also "corrects" unknown TLDs (acme.test -> acme.de), which would be wrong
 * for a company domain.
 */
export function suggestCorrection(localPart: string, domain: string): string | null {
  if (isWebmailDomain(domain)) return null;
  const suggestion = suggestDomain({ email: `${localPart}@${domain}` });
  if (!suggestion || suggestion.domain === domain || !isWebmailDomain(suggestion.domain)) return null;
  return `${localPart}@${suggestion.domain}`;
}
