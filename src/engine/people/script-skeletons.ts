import { SCRIPT_NOT_NAME_WORDS, THAI_NOT_NAME_START } from "../data/name-words.js";

/**
 * Names written only in Arabic, Hebrew or Thai script, tied to the Latin address that spells them
 * (`أحمد حداد` at `ahmed.haddad@`, `נועה כהן` at `ncohen@`, `สมชาย ศรีสุข` at `somchai.s@`). These
 * scripts leave vowels out (Arabic, Hebrew) or spell a consonant otherwise at the end of a syllable
 * (Thai), so no one romanization exists; what survives every spelling is the run of consonant
 * sounds. A word and a piece of the address are one name when their consonant skeletons agree
 * (each letter of the script maps to a class of sounds; vowels, glottal letters and the letters
 * that are now a vowel, now a consonant (و ي ו י ว ย) drop out). The address decides the spelling;
 * a word whose skeleton no piece of the address has is left as it is (no name rather than a wrong one).
 */

type Script = "arabic" | "hebrew" | "thai";

/** Each letter's sound classes (several when it is spelled otherwise by position); "" drops out. */
const ARABIC: Record<string, readonly string[]> = {
  ا: [""],
  أ: [""],
  إ: [""],
  آ: [""],
  ء: [""],
  ئ: [""],
  ؤ: [""],
  ع: [""],
  ى: [""],
  و: [""],
  ي: [""],
  ة: ["", "H", "T"],
  ب: ["B"],
  ت: ["T"],
  ث: ["T", "S"],
  ج: ["J"],
  ح: ["H"],
  خ: ["K"],
  د: ["D"],
  ذ: ["D", "Z"],
  ر: ["R"],
  ز: ["Z"],
  س: ["S"],
  ش: ["X"],
  ص: ["S"],
  ض: ["D"],
  ط: ["T"],
  ظ: ["Z", "D"],
  غ: ["G"],
  ف: ["F"],
  ق: ["K"],
  ك: ["K"],
  ل: ["L"],
  م: ["M"],
  ن: ["N"],
  ه: ["H", ""],
};

const HEBREW: Record<string, readonly string[]> = {
  א: [""],
  ע: [""],
  ו: ["", "B"],
  י: [""],
  ה: ["H", ""],
  ב: ["B"],
  ג: ["G"],
  ד: ["D"],
  ז: ["Z"],
  ח: ["K", "H"],
  ט: ["T"],
  כ: ["K"],
  ך: ["K"],
  ל: ["L"],
  מ: ["M"],
  ם: ["M"],
  נ: ["N"],
  ן: ["N"],
  ס: ["S"],
  פ: ["P"],
  ף: ["P"],
  צ: ["C"],
  ץ: ["C"],
  ק: ["K"],
  ר: ["R"],
  ש: ["X", "S"],
  ת: ["T"],
};

/** Thai consonants, with the sound RTGS gives them at the end of a syllable as a second class. */
const THAI: Record<string, readonly string[]> = {
  ก: ["K"],
  ข: ["K"],
  ฃ: ["K"],
  ค: ["K"],
  ฅ: ["K"],
  ฆ: ["K"],
  ง: ["N"],
  จ: ["C", "T"],
  ฉ: ["C"],
  ช: ["C", "T"],
  ซ: ["S", "T"],
  ฌ: ["C"],
  ญ: ["", "N"],
  ฎ: ["D", "T"],
  ฏ: ["T"],
  ฐ: ["T"],
  ฑ: ["T"],
  ฒ: ["T"],
  ณ: ["N"],
  ด: ["D", "T"],
  ต: ["T"],
  ถ: ["T"],
  ท: ["T"],
  ธ: ["T"],
  น: ["N"],
  บ: ["B", "P"],
  ป: ["P"],
  ผ: ["P"],
  ฝ: ["F", "P"],
  พ: ["P"],
  ฟ: ["F", "P"],
  ภ: ["P"],
  ม: ["M"],
  ย: [""],
  ร: ["R", "N", "RN"],
  ล: ["L", "N"],
  ว: [""],
  ศ: ["S", "T"],
  ษ: ["S", "T"],
  ส: ["S", "T"],
  ห: ["H", ""],
  ฬ: ["L", "N"],
  อ: [""],
  ฮ: ["H"],
};
/** Thai's silencer (thanthakhat): the consonant it stands on is not pronounced. */
const SILENCER = "\u0E4C";

const TABLES: Record<Script, Record<string, readonly string[]>> = { arabic: ARABIC, hebrew: HEBREW, thai: THAI };
const SCRIPT_OF: [RegExp, Script][] = [
  [/^[\p{Script=Arabic}]+$/u, "arabic"],
  [/^[\p{Script=Hebrew}]+$/u, "hebrew"],
  [/^[\p{Script=Thai}]+$/u, "thai"],
];

/** The script of a word written wholly in Arabic, Hebrew or Thai letters, else null. */
export function skeletonScript(word: string): Script | null {
  return SCRIPT_OF.find(([re]) => re.test(word))?.[1] ?? null;
}

/**
 * Whether a line of text is a name in Arabic, Hebrew or Thai script only: two or three words, one
 * script, none of them a word of the page's own ("צור קשר", "مدير المبيعات", "מאת מיכל כץ").
 */
export function looksLikeScriptName(text: string): boolean {
  const words = text.trim().split(/\s+/);
  if (words.length < 2 || words.length > 3) return false;
  if (words.some((w) => SCRIPT_NOT_NAME_WORDS.has(w.replace(/["״׳']/g, "")) || THAI_NOT_NAME_START.test(w)))
    return false;
  const script = skeletonScript(words[0] ?? "");
  return script !== null && words.every((w) => skeletonScript(w) === script && [...w].length >= 2);
}

const collapse = (s: string) => s.replace(/(.)\1+/g, "$1");
/** Past this many skeletons a word is not expanded further. */
const MAX_SKELETONS = 64;

/** Every consonant skeleton of a word in its script. */
function nativeSkeletons(word: string, script: Script): Set<string> {
  const table = TABLES[script];
  const chars = [...word];
  let out = [""];
  chars.forEach((ch, i) => {
    const classes = table[ch];
    if (!classes) return;
    // A Thai consonant under the silencer (perhaps with a vowel sign between) is not spoken.
    const next = chars[i + 1] ?? "";
    if (script === "thai" && (next === SILENCER || (/\p{M}/u.test(next) && chars[i + 2] === SILENCER))) return;
    const options = out.length * classes.length > MAX_SKELETONS ? classes.slice(0, 1) : classes;
    out = out.flatMap((prefix) => options.map((c) => prefix + c));
  });
  return new Set(out.map(collapse));
}

/** Latin letter groups and their sound classes, per script (longest first). */
const LATIN: Record<Script, [string, string][]> = {
  arabic: [
    ["kh", "K"],
    ["sh", "X"],
    ["ch", "X"],
    ["th", "T"],
    ["dh", "D"],
    ["gh", "G"],
    ["dj", "J"],
    ["b", "B"],
    ["t", "T"],
    ["j", "J"],
    ["g", "J"],
    ["h", "H"],
    ["d", "D"],
    ["r", "R"],
    ["z", "Z"],
    ["s", "S"],
    ["c", "K"],
    ["f", "F"],
    ["q", "K"],
    ["k", "K"],
    ["l", "L"],
    ["m", "M"],
    ["n", "N"],
  ],
  hebrew: [
    ["sh", "X"],
    ["ch", "K"],
    ["kh", "K"],
    ["tz", "C"],
    ["ts", "C"],
    ["ph", "P"],
    ["b", "B"],
    ["v", "B"],
    ["g", "G"],
    ["d", "D"],
    ["z", "Z"],
    ["h", "H"],
    ["t", "T"],
    ["k", "K"],
    ["c", "K"],
    ["q", "K"],
    ["l", "L"],
    ["m", "M"],
    ["n", "N"],
    ["s", "S"],
    ["p", "P"],
    ["f", "P"],
    ["r", "R"],
  ],
  thai: [
    ["ng", "N"],
    ["ch", "C"],
    ["th", "T"],
    ["ph", "P"],
    ["kh", "K"],
    ["k", "K"],
    ["g", "K"],
    ["c", "C"],
    ["j", "C"],
    ["s", "S"],
    ["d", "D"],
    ["t", "T"],
    ["n", "N"],
    ["b", "B"],
    ["p", "P"],
    ["f", "F"],
    ["m", "M"],
    ["r", "R"],
    ["l", "L"],
    ["h", "H"],
  ],
};

/** The consonant skeleton of a piece of an address, as a reader of `script` would hear it. */
function latinSkeleton(latin: string, script: Script): string {
  let out = "";
  for (let i = 0; i < latin.length; ) {
    const hit = LATIN[script].find(([letters]) => latin.startsWith(letters, i));
    if (hit) {
      out += hit[1];
      i += hit[0].length;
    } else i++;
  }
  return collapse(out);
}

/**
 * The pieces of a local part that spell a word of one of these scripts: every run of its letters
 * whose skeleton agrees with the word's (two consonant sounds at least, so that a short word does
 * not match anything), and the single letters an initial could be.
 */
export function spellingsIn(local: string, word: string): string[] {
  const script = skeletonScript(word);
  if (!script) return [];
  const wanted = nativeSkeletons(word, script);
  const text = local.toLowerCase();
  const out = new Set<string>();
  for (let start = 0; start < text.length; start++) {
    for (let end = start + 2; end <= Math.min(text.length, start + 24); end++) {
      const piece = text.slice(start, end);
      if (!/^[a-z]+$/.test(piece)) break;
      const skeleton = latinSkeleton(piece, script);
      if (skeleton.length >= 2 && wanted.has(skeleton)) out.add(piece);
    }
  }
  // An initial: the letter the word's first sound is written with, or a vowel for a word that starts with one.
  const starts = new Set([...wanted].map((s) => s.charAt(0)));
  const firstIsVowel = (TABLES[script][[...word][0] ?? ""] ?? []).includes("");
  for (const ch of new Set(text.replace(/[^a-z]/g, ""))) {
    if (/[aeiouy]/.test(ch) ? firstIsVowel : starts.has(latinSkeleton(ch, script))) out.add(ch);
  }
  return [...out];
}

/** Past this many candidate spellings of a name, the rest are not tried. */
const MAX_NAMES = 64;

/**
 * The Latin spellings of a name written in Arabic, Hebrew or Thai script that a local part allows
 * (each part as a piece of the address its skeleton agrees with); empty when the name has no such
 * part or a part has no piece to match.
 */
export function scriptSpellings(local: string, name: { first: string; last: string; middle?: string }) {
  const parts = [name.first, name.middle ?? "", name.last];
  if (!parts.some((p) => skeletonScript(p) !== null)) return [];
  const options = parts.map((p) => (skeletonScript(p) ? spellingsIn(local, p) : [p]));
  if (options.some((o) => o.length === 0)) return [];
  let names: string[][] = [[]];
  for (const o of options) names = names.flatMap((prefix) => o.map((x) => [...prefix, x])).slice(0, MAX_NAMES);
  return names.map(([first = "", middle = "", last = ""]) => ({ first, last, ...(middle ? { middle } : {}) }));
}
