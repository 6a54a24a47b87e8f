/**
 * Legal forms of companies, as the last word of a company's name ("Linde Partners LLP", "Aurora
 * Zixun Co., Ltd.", "Alpha Lojistik Ltd. Şti.", "Dahl Rådgivning AS"): lower-case, without dots or
 * diacritics (the form as nameKey in src/engine/people/names.ts writes it). Used by the finder to
 * leave a company's name out of the people a team page shows (src/engine/finder/shown-people.ts).
 *
 * Two-letter forms are also common words or name parts (As, Ab, Sa, Co), so the finder takes them
 * for a legal form only written in capitals or with a dot (AS, A.Ş., S.A., Co.): TWO_LETTER_FORMS.
 */
export const LEGAL_FORMS: ReadonlySet<string> = new Set([
  // English-speaking countries
  "inc",
  "corp",
  "ltd",
  "llc",
  "llp",
  "lllp",
  "plc",
  "pty",
  "pllc",
  "pc",
  "co",
  "lp",
  // German-speaking countries
  "gmbh",
  "ag",
  "kg",
  "ohg",
  "gbr",
  "ug",
  "ek",
  "ev",
  "eg",
  "kgaa",
  "se",
  // Romance languages
  "sa",
  "sas",
  "sasu",
  "sarl",
  "eurl",
  "sl",
  "slu",
  "sau",
  "spa",
  "srl",
  "sapa",
  "snc",
  "ltda",
  "lda",
  "eireli",
  "me",
  "cv",
  "sab",
  // Dutch, Belgian, Nordic
  "bv",
  "nv",
  "vof",
  "bvba",
  "as",
  "asa",
  "aps",
  "ab",
  "hb",
  "kb",
  "oy",
  "oyj",
  "ehf",
  "hf",
  // Central and Eastern Europe, Turkey
  "kft",
  "zrt",
  "nyrt",
  "bt",
  "sro",
  "spzoo",
  "zoo",
  "sp",
  "doo",
  "dd",
  "ad",
  "ood",
  "ooo",
  "zao",
  "oao",
  "pao",
  "sti",
  // Asia
  "kk",
  "gk",
  "yk",
  "bhd",
  "sdn",
  "tbk",
  "jsc",
]);

/** Legal forms of two letters: a legal form only in capitals or with a dot ("AS", "A.Ş."), else a word. */
export const TWO_LETTER_FORMS: ReadonlySet<string> = new Set([...LEGAL_FORMS].filter((f) => f.length <= 2));
