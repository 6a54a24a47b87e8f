import transliterate from "@sindresorhus/transliterate";

/**
 * Text folded toward plain Latin letters, so that words compare regardless of accents ("Über uns"
 * = "Uber uns") and names are spelled as mail systems spell them ("Müller" → "muller" or
 * "mueller"). Every fold in the service goes through here, so a letter folds the same way
 * wherever two texts are compared; the options are the differences that are meant.
 */
export interface AsciiFoldOptions {
  /**
   * "keep" (the default): only accented Latin letters change; other scripts stay as they are (the
   * crawler's keywords include "個人情報"). "transliterate": every script is spelled in ASCII
   * ("Москва" → "Moskva"), as a mailbox would be.
   */
  scripts?: "keep" | "transliterate";
  /**
   * Fold compatibility forms too (full-width letters, ligatures such as "ﬁ", superscripts), by
   * NFKD rather than NFD. Transliteration always does.
   */
  compatibility?: boolean;
  /** German umlauts: "plain" ä → a (the default), "expanded" ä → ae. */
  umlauts?: "plain" | "expanded";
  /** Nordic ø and å: "plain" o, a (the default), "expanded" oe, aa. */
  nordic?: "plain" | "expanded";
}

/** Latin letters that no Unicode decomposition takes apart. */
const UNDECOMPOSED: Record<string, string> = {
  ß: "ss",
  ẞ: "SS",
  ł: "l",
  Ł: "L",
  ø: "o",
  Ø: "O",
  đ: "d",
  Đ: "D",
  ı: "i",
  æ: "ae",
  Æ: "AE",
};
const UNDECOMPOSED_LETTER = new RegExp(`[${Object.keys(UNDECOMPOSED).join("")}]`, "g");

const EXPANDED_UMLAUTS: Record<string, string> = { ä: "ae", ö: "oe", ü: "ue", Ä: "Ae", Ö: "Oe", Ü: "Ue" };
const EXPANDED_NORDIC: Record<string, string> = { ø: "oe", å: "aa", Ø: "Oe", Å: "Aa" };

// The transliteration library spells German umlauts as digraphs by default; "plain" wants the bare vowel.
const PLAIN_UMLAUTS: [string, string][] = [
  ["ä", "a"],
  ["ö", "o"],
  ["ü", "u"],
  ["Ä", "A"],
  ["Ö", "O"],
  ["Ü", "U"],
];

export function asciiFold(text: string, options: AsciiFoldOptions = {}): string {
  const { scripts = "keep", compatibility = false, umlauts = "plain", nordic = "plain" } = options;
  let s = text;
  if (umlauts === "expanded") s = s.replace(/[äöüÄÖÜ]/g, (c) => EXPANDED_UMLAUTS[c] ?? c);
  if (nordic === "expanded") s = s.replace(/[øåØÅ]/g, (c) => EXPANDED_NORDIC[c] ?? c);
  if (scripts === "transliterate") {
    return transliterate(s, { customReplacements: umlauts === "plain" ? PLAIN_UMLAUTS : [] });
  }
  return s
    .normalize(compatibility ? "NFKD" : "NFD")
    .replace(/\p{M}/gu, "")
    .replace(UNDECOMPOSED_LETTER, (c) => UNDECOMPOSED[c] ?? c);
}
