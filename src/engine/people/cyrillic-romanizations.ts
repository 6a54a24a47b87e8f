/**
 * The Latin spellings a Cyrillic name is given by the romanizations in use (GOST 7.79 / ICAO
 * `iuliia`, BGN/PCGN `yuliya`, the simplified `yulia`, German and Polish `julija`), so that a query
 * written in any of them finds the person a site lists in Cyrillic. Only for names the site shows
 * in Cyrillic: two Latin names that differ in these letters (Ian, Jan) are two people.
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
  // "-ия" endings are often shortened: Юлия → yulia, Мария → maria.
  const spellings = new Set(out);
  for (const s of out) if (/iya$|iia$|ija$/.test(s)) spellings.add(`${s.slice(0, -3)}ia`);
  return spellings;
}

/** Whether a Latin query word is one of the romanizations of a Cyrillic word the site shows. */
export function romanizes(cyrillic: string, latin: string): boolean {
  const key = latin.toLowerCase().replace(/[^a-z]/g, "");
  return key.length > 0 && isCyrillicWord(cyrillic) && cyrillicRomanizations(cyrillic).has(key);
}
