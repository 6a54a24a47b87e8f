import { looksLikePersonName, type PersonName, splitFullName } from "../names.js";
import { matchPatterns } from "../patterns.js";
import { departmentOf, isGenericLocalPart, seniorityOf } from "../positions.js";

export interface FoundAddress {
  email: string;
  name: PersonName | null;
  position: string | null;
  via: "mailto" | "text" | "cfemail" | "jsonld";
}

const TITLE_WORDS =
  /\b(ceo|cto|cfo|coo|cmo|cio|ciso|founder|co-?founder|owner|president|vp|director|manager|head|lead|engineer|developer|designer|officer|partner|counsel|analyst|consultant|specialist|coordinator|assistant|associate|architect|scientist|recruiter|editor|writer|journalist|reporter|advisor|intern|representative|executive|administrator|geschäftsführer(in)?|leiter(in)?|referent(in)?|berater(in)?|vorstand|inhaber(in)?)\b/i;

export function looksLikePosition(text: string): boolean {
  const t = text.trim();
  if (t.length < 2 || t.length > 80 || /[@\d]/.test(t) || t.split(/\s+/).length > 9) return false;
  return TITLE_WORDS.test(t) || departmentOf(t) !== null || seniorityOf(t) !== null;
}

const SEPARATORS = /\s*(?:,|\||–|—|\s-\s|:|\(|\)|·|•)\s*/;

/** A name and position read from one line ("Jane Doe, CTO" / "Jane Doe" / "Chief Technology Officer"). */
function readLine(line: string): { name: string | null; position: string | null } {
  const segments = line.split(SEPARATORS).map((s) => s.trim()).filter(Boolean);
  let name: string | null = null;
  let position: string | null = null;
  for (const s of segments) {
    // "Leiterin Buchhaltung" is capitalised like a name; a title word makes it a position.
    const isPosition = looksLikePosition(s);
    if (!name && !isPosition && looksLikePersonName(s)) name = s;
    else if (!position && isPosition) position = s;
  }
  return { name, position };
}

/** A name is kept only when the address is plausibly that person's: some format turns the name into it. */
function fits(email: string, name: PersonName): boolean {
  return matchPatterns(email.slice(0, email.indexOf("@")), name).patterns.length > 0;
}

const LOOK_BACK = 4;

/**
 * The person an address belongs to, read from the page around it: the link text, the text before it
 * on its line, then up to four lines above (a team card: name, title, address), stopping at the
 * previous card's address. Role addresses (info@, sales@) get no person.
 */
export function personNear(
  email: string,
  lines: readonly string[],
  lineIndex: number,
  anchorText: string,
  sameLineBefore?: string,
): { name: PersonName | null; position: string | null } {
  const local = email.slice(0, email.indexOf("@"));
  if (isGenericLocalPart(local)) return { name: null, position: null };

  let name: PersonName | null = null;
  let position: string | null = null;
  const consider = (line: string) => {
    const read = readLine(line);
    if (!name && read.name) {
      const candidate = splitFullName(read.name);
      if (candidate && fits(email, candidate)) {
        name = candidate;
        position ??= read.position;
        return;
      }
    }
    if (!position && read.position) position = read.position;
  };

  if (anchorText && !anchorText.includes("@")) consider(anchorText);
  const here = sameLineBefore ?? lines[lineIndex] ?? "";
  if (!name) consider(here.replace(/\S+@\S+/g, " "));
  for (let i = lineIndex - 1; i >= Math.max(0, lineIndex - LOOK_BACK) && !name; i--) {
    const line = lines[i]!;
    if (/@/.test(line)) break;
    consider(line);
  }
  // A position without the person it belongs to is not attached to anyone.
  return name ? { name, position } : { name: null, position: null };
}
