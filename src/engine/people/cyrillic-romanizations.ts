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
  // The first letter written (й may be silent inside a word, never as its initial).
  const first = (LETTER[word.charAt(0).toLowerCase()] ?? []).filter(Boolean);
  return spellings.find((s) => first.some((o) => s.startsWith(o)) && local.includes(s.charAt(0))) ?? word;
}

/** Letters and the pair кс with the spellings a domain may choose between, for learning its habits. */
const UNITS: [string, readonly string[]][] = [["кс", ["ks", "x"]], ...Object.entries(LETTER)];

/** The letter-by-letter spelling of a Cyrillic word that gives `spelled`, or null when none does. */
function lettersOf(word: string, spelled: string): [string, string][] | null {
  const letters = word.toLowerCase().replace(/[^\p{Script=Cyrillic}]/gu, "");
  const failed = new Set<string>();
  const walk = (i: number, at: number): [string, string][] | null => {
    if (i === letters.length) return at === spelled.length ? [] : null;
    if (failed.has(`${i}:${at}`)) return null;
    for (const [unit, options] of UNITS) {
      if (!letters.startsWith(unit, i)) continue;
      for (const option of options) {
        if (!spelled.startsWith(option, at)) continue;
        const rest = walk(i + unit.length, at + option.length);
        if (rest) return [[unit, option], ...rest];
      }
    }
    failed.add(`${i}:${at}`);
    return null;
  };
  return walk(0, 0);
}

/**
 * Letters spelled otherwise at the start of a word (BGN's Евгений → Yevgeniy; the Ukrainian
 * system's Юлія → Yuliia, Євген → Yevhen): counted apart there.
 */
const AT_START = new Set(["е", "ё", "є", "ю", "я", "ї", "й"]);
/**
 * Letters Ukrainian and Russian share but romanize apart (Ukrainian г is h, и is y: Гнатюк →
 * hnatiuk, Russian Виноградова → vinogradova): a domain's habits for them are counted per language.
 */
const APART_IN_UKRAINIAN = new Set(["г", "и", "е"]);
const habitKey = (unit: string, first: boolean, ukrainian = false) => {
  const key = first && AT_START.has(unit) ? `^${unit}` : unit;
  return ukrainian && APART_IN_UKRAINIAN.has(unit) ? `${key}:uk` : key;
};

/** A name with a letter only Ukrainian writes (і, ї, є, ґ: Григорій, Андрій). */
export function isUkrainianName(name: PersonName): boolean {
  return /[іїєґ]/i.test(`${name.first} ${name.middle ?? ""} ${name.last}`);
}

/** How a domain spells each Cyrillic letter, counted over the names its addresses spell. */
export type LetterHabits = Map<string, Map<string, number>>;

/** The habits shown by a domain's addresses whose owners' names the pages show in Cyrillic. */
export function letterHabits(addresses: Iterable<{ localPart: string; name: PersonName }>): LetterHabits {
  const habits: LetterHabits = new Map();
  for (const { localPart, name } of addresses) {
    const ukrainian = isUkrainianName(name);
    const spelled = spelledAsAddress(localPart, name);
    const pairs: [string, string][] = [
      [name.first, spelled.first],
      [name.last, spelled.last],
    ];
    for (const [word, latin] of pairs) {
      // Only words the address spells whole (an initial says little of the other letters).
      if (!isCyrillicWord(word) || isCyrillicWord(latin) || !localPart.toLowerCase().includes(latin.toLowerCase()))
        continue;
      (lettersOf(word, latin.toLowerCase()) ?? []).forEach(([unit, option], i) => {
        const key = habitKey(unit, i === 0, ukrainian);
        const counts = habits.get(key) ?? new Map<string, number>();
        counts.set(option, (counts.get(option) ?? 0) + 1);
        habits.set(key, counts);
      });
    }
  }
  return habits;
}

/**
 * A Cyrillic word spelled as the domain spells its letters: each letter its most used spelling
 * there; a letter the domain's addresses never spell keeps the spelling of `asked` (the query's
 * romanization of the word), else the usual one.
 */
export function spellWithHabits(word: string, habits: LetterHabits, asked = "", ukrainian = false): string {
  const letters = word.toLowerCase().replace(/[^\p{Script=Cyrillic}]/gu, "");
  const own = new Map<number, [string, string]>();
  let at = 0;
  for (const pair of lettersOf(word, asked.toLowerCase().replace(/[^a-z]/g, "")) ?? []) {
    own.set(at, pair);
    at += pair[0].length;
  }
  let out = "";
  for (let i = 0; i < letters.length; ) {
    const [unit, option] = own.get(i) ?? [letters.startsWith("кс", i) ? "кс" : (letters[i] ?? ""), undefined];
    const counts = [...(habits.get(habitKey(unit, i === 0, ukrainian)) ?? [])].sort((a, b) => b[1] - a[1]);
    const spelled = counts[0]?.[0] ?? option;
    if (unit === "кс" && spelled === undefined) {
      // Neither the domain nor the query says how кс is written: letter by letter.
      out += `${LETTER.к?.[0]}${LETTER.с?.[0]}`;
    } else out += spelled ?? LETTER[unit]?.[0] ?? "";
    i += unit.length;
  }
  return out;
}

/**
 * A key under which the Latin romanizations of one Russian name agree (Yuliya, Iuliia, Yulia,
 * Julija; Aleksey, Alexei; Pyotr, Petr), for names a site shows in Latin with a patronymic.
 */
export function romanizationKey(latin: string): string {
  return latin
    .toLowerCase()
    .replace(/[^a-z]/g, "")
    .replace(/ks/g, "x")
    .replace(/schtsch|shch|sht/g, "Q")
    .replace(/tsch/g, "C")
    .replace(/sch/g, "S")
    .replace(/zh/g, "Z")
    .replace(/kh/g, "H")
    .replace(/ch/g, "C")
    .replace(/sh/g, "S")
    .replace(/ts|tz/g, "T")
    .replace(/[iyj]u/g, "U")
    .replace(/i?[iyj]a/g, "A")
    .replace(/[iyj]o/g, "e")
    .replace(/^[iyj]e|([aeiou])[yj]e/g, "$1e")
    .replace(/(?:[iy][iyj]|[iy])$/g, "I")
    .replace(/[yj]/g, "i");
}
