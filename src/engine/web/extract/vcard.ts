import { type PersonName, splitFullName } from "../../people/names.js";
import type { NameEvidence } from "../../people/readings.js";
import { acceptAddress } from "./email-addresses.js";
import { type FoundAddress, shown } from "./people.js";

/**
 * vCard files (`.vcf`, RFC 6350 and the older 2.1/3.0) that team pages link for "save contact":
 * each card's EMAIL lines, named by its N (family;given;additional) or FN, with TITLE as position.
 */
export function isVCard(body: string, contentType: string): boolean {
  return /vcard|directory/i.test(contentType) || /^\s*BEGIN:VCARD/i.test(body);
}

/** Unfolds continuation lines and splits `NAME;PARAMS:value`. */
function properties(card: string): { name: string; value: string }[] {
  const unfolded = card.replace(/\r?\n[ \t]/g, "");
  return unfolded.split(/\r?\n/).flatMap((line) => {
    const colon = line.indexOf(":");
    if (colon < 1) return [];
    const name = line
      .slice(0, colon)
      .replace(/;.*$/s, "")
      .replace(/^item\d+\./i, "")
      .toUpperCase();
    const value = line
      .slice(colon + 1)
      .replace(/\\([,;\\])/g, "$1")
      .replace(/\\n/gi, " ")
      .trim();
    return [{ name, value }];
  });
}

export function vCardAddresses(body: string, targetDomain: string): FoundAddress[] {
  const out: FoundAddress[] = [];
  for (const card of body.split(/BEGIN:VCARD/i).slice(1)) {
    const props = properties(card);
    const get = (n: string) => props.find((p) => p.name === n)?.value ?? null;
    const n = get("N")?.split(";") ?? [];
    const family = n[0]?.trim();
    const given = n[1]?.trim();
    const additional = n[2]?.trim();
    const fn = get("FN");
    // N states which part is the family name; FN is only a displayed name.
    const stated: PersonName | null =
      family && given ? { first: given, last: family, ...(additional ? { middle: additional } : {}) } : null;
    const evidence: NameEvidence | null = stated ? { kind: "stated", name: stated } : fn ? shown(fn) : null;
    const name = stated ?? (fn ? splitFullName(fn) : null);
    const position = get("TITLE") || get("ROLE") || null;
    for (const p of props) {
      if (p.name !== "EMAIL") continue;
      const email = acceptAddress(p.value.replace(/^mailto:/i, ""), targetDomain);
      if (email && !out.some((a) => a.email === email)) out.push({ email, evidence, name, position, via: "vcard" });
    }
  }
  return out;
}
