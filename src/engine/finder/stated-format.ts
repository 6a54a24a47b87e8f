import { asciiFold } from "../../platform/ascii-fold.js";
import { FAMILY_NAME_WORDS, GIVEN_NAME_WORDS } from "../data/placeholder-words.js";
import { PATTERNS, type Pattern } from "./patterns.js";

/**
 * Conventions a site states in words: "our addresses follow firstname.lastname@acme.de",
 * "E-Mail: vorname.nachname@kanzlei.de", "f.nazwisko@firma.pl". The placeholder is evidence for
 * the domain's format and never an address of its own.
 */

/**
 * A placeholder has a word of at least this length ("vorname", "lastname", "prenom"): short words
 * are also names and mailboxes ("ho.l" is Hồ Linh, "nom@" and "ad@" are real), never enough alone.
 */
const MIN_LONG_WORD = 5;
/** One word alone is a placeholder only when it cannot be a person's name or a mailbox ("name@", "nom@" can). */
const MIN_SINGLE_WORD = 6;

type Role = "first" | "last" | "f" | "l" | "." | "_" | "-";

const WORDS: [string, Role][] = [
  ...GIVEN_NAME_WORDS.map((w) => [w, "first"] as [string, Role]),
  ...FAMILY_NAME_WORDS.map((w) => [w, "last"] as [string, Role]),
].sort((a, b) => b[0].length - a[0].length);

/**
 * The format a placeholder local part stands for ("vorname.nachname" → {first}.{last},
 * "f.lastname" → {f}.{last}, "nazwiskoi" → null), or null when it is not made of placeholder words.
 * A single letter is an initial only next to a word for the other part of the name.
 */
export function placeholderFormat(localPart: string, inProse = false): Pattern | null {
  const local = localPart.toLowerCase();
  // In a sentence stating the convention, one short word is a placeholder too ("imie@firma.pl", "ad@…").
  const word = inProse ? WORDS.find(([w]) => w === local) : undefined;
  if (word) return word[1] === "first" ? "{first}" : "{last}";
  const hasLongWord = WORDS.some(([w]) => w.length >= MIN_LONG_WORD && local.includes(w));
  const parses = segment(local, 0, MAX_ROLES);
  for (const roles of parses) {
    const words = roles.filter((r) => r === "first" || r === "last");
    if (words.length === 0) continue;
    // Short words only count when the placeholder is nothing but them ("ten_ho" is tên_họ; "ho.l" is Hồ Linh).
    if (!hasLongWord && (words.length < 2 || roles.some((r) => r === "f" || r === "l"))) continue;
    if (roles.length === 1 && local.length < MIN_SINGLE_WORD) continue;
    const initials = roles.filter((r) => r === "f" || r === "l");
    // An initial stands for the part no word names: "f.lastname", "firstname.l".
    if (initials.some((r) => (r === "f" ? words.includes("first") : words.includes("last")))) continue;
    const pattern = roles.map((r) => (r === "first" || r === "last" || r === "f" || r === "l" ? `{${r}}` : r)).join("");
    if ((PATTERNS as readonly string[]).includes(pattern)) return pattern as Pattern;
  }
  return null;
}

/** The longest placeholder: two words, two separators and an initial ("firstname.m.lastname" is not a format). */
const MAX_ROLES = 5;

/** Every way to read `text` from `at` as at most `left` placeholder words, initials and separators. */
function segment(text: string, at: number, left: number): Role[][] {
  if (at === text.length) return [[]];
  if (left === 0) return [];
  const out: Role[][] = [];
  const c = text.charAt(at);
  if (c === "." || c === "_" || c === "-") {
    if (at === 0) return [];
    for (const rest of segment(text, at + 1, left - 1)) out.push([c, ...rest]);
    return out;
  }
  for (const [word, role] of WORDS) {
    if (!text.startsWith(word, at)) continue;
    for (const rest of segment(text, at + word.length, left - 1)) out.push([role, ...rest]);
  }
  // A lone letter as an initial: "f" before a family word, "l" after a given word (checked above).
  if (/[a-z]/.test(c)) {
    for (const rest of segment(text, at + 1, left - 1))
      for (const role of ["f", "l"] as const) if (rest.length || at > 0) out.push([role, ...rest]);
  }
  return out;
}

/** ASCII spelling of a line for finding placeholders written with accents ("prénom.nom", "adı.soyadı", "imię.nazwisko"). */
export function foldForPlaceholders(line: string): string {
  return asciiFold(line);
}
