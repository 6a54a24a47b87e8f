import { asciiFold } from "../../platform/ascii-fold.js";
import type { PersonName } from "./names.js";

/**
 * The Latin spellings a Cyrillic name is given by the romanizations in use (GOST 7.79 / ICAO
 * `iuliia`, BGN/PCGN `yuliya`, the simplified `yulia`, German and Polish `julija`), so that a query
 * written in any of them finds the person a site lists in Cyrillic, and an address that spells a
 * name the page shows in Cyrillic its own way (Пётр at `petr.smirnov@`, not the fold's `pyotr`) is
 * read as that person's. Only for names shown in Cyrillic: two Latin names that differ in these
 * letters (Ian, Jan) are two people.
 */

/** Each letter's spellings; the first is the one a plain fold writes. */
const LETTER: Record<string, readonly string[]> = {
  а: ["a"],
  б: ["b"],
  в: ["v", "w"],
  г: ["g", "h"],
  ґ: ["g"],
  д: ["d"],
  е: ["e", "ye", "je"],
  є: ["ye", "ie", "je"],
  ё: ["e", "yo", "io", "jo"],
  ж: ["zh", "z", "j"],
  з: ["z"],
  и: ["i", "y"],
  і: ["i"],
  ї: ["yi", "i", "ji"],
  й: ["y", "i", "j", ""],
  к: ["k"],
  л: ["l"],
  м: ["m"],
  н: ["n"],
  о: ["o"],
  п: ["p"],
  р: ["r"],
  с: ["s"],
  т: ["t"],
  у: ["u"],
  ф: ["f"],
  х: ["kh", "h", "ch", "x"],
  ц: ["ts", "c", "tz"],
  ч: ["ch", "tch", "tsch"],
  ш: ["sh", "sch"],
  щ: ["shch", "sch", "sht"],
  ъ: ["", "a"],
  ы: ["y", "i"],
  ь: [""],
  э: ["e"],
  ю: ["yu", "iu", "ju", "u"],
  я: ["ya", "ia", "ja", "a"],
};

/** Past this many spellings a word is not expanded further (long names, many ambiguous letters). */
const MAX_SPELLINGS = 512;

/** Whether the word is written in Cyrillic letters only. */
export function isCyrillicWord(word: string): boolean {
  return /^[\p{Script=Cyrillic}\s'’-]+$/u.test(word) && /\p{Script=Cyrillic}/u.test(word);
}

/** Lowercase ASCII spellings of a Cyrillic word under the romanizations in use. */
export function cyrillicRomanizations(word: string): Set<string> {
  let out = [""];
  for (const ch of word.toLowerCase().replace(/[^\p{Script=Cyrillic}]/gu, "")) {
    const options = LETTER[ch] ?? [""];
    const next = out.length * options.length > MAX_SPELLINGS ? options.slice(0, 1) : options;
    out = out.flatMap((prefix) => next.map((o) => prefix + o));
  }
  // "-ия" endings are often shortened: Юлия → yulia, Мария → maria; and "кс" written x: Алексей → alexey.
  const spellings = new Set(out);
  for (const s of out) if (/iya$|iia$|ija$/.test(s)) spellings.add(`${s.slice(0, -3)}ia`);
  for (const s of [...spellings]) if (s.includes("ks")) spellings.add(s.replaceAll("ks", "x"));
  return spellings;
}

/** Whether a Latin query word is one of the romanizations of a Cyrillic word the site shows. */
export function romanizes(cyrillic: string, latin: string): boolean {
  const key = latin.toLowerCase().replace(/[^a-z]/g, "");
  return key.length > 0 && isCyrillicWord(cyrillic) && cyrillicRomanizations(cyrillic).has(key);
}

/**
 * The name with each Cyrillic word spelled as the address spells it: the longest romanization the
 * local part holds, else (an initial) one starting with a letter the local part holds when the plain
 * fold's first letter is not there (Юлия at `jivanova@`). Words the address does not spell at all
 * stay as they are, and are folded as usual.
 */
export function spelledAsAddress(localPart: string, name: PersonName): PersonName {
  if (!/\p{Script=Cyrillic}/u.test(`${name.first} ${name.middle ?? ""} ${name.last}`)) return name;
  const local = localPart.toLowerCase();
  const spell = (part: string) =>
    part
      .split(/([\s-]+)/)
      .map((w) => (isCyrillicWord(w) ? spellingIn(local, w) : w))
      .join("");
  const middle = name.middle ? { middle: spell(name.middle) } : {};
  return { first: spell(name.first), ...middle, last: spell(name.last) };
}

function spellingIn(local: string, word: string): string {
  const spellings = [...cyrillicRomanizations(word)].filter(Boolean);
  const held = spellings.filter((s) => local.includes(s)).sort((a, b) => b.length - a.length)[0];
  if (held) return held;
  const folded = asciiFold(word.toLowerCase(), { scripts: "transliterate" }).toLowerCase();
  if (local.includes(folded.charAt(0))) return word;
  return spellings.find((s) => local.includes(s.charAt(0))) ?? word;
}
