/**
 * Words that end a company's name, never a person's: legal forms ("Inc.", "GmbH", "K.K.") and the
 * business words company names are made of ("Hendriks Engineering", "Müller Beratung", "Sakura
 * Kogyo"). A page shows such names where a person's name could stand (a photo caption, a client's
 * testimonial, a footer's "© Müller Consulting Inc."). One list for every reader of names: the
 * crawl's name reading and the finder's colleagues.
 */

/** Legal forms, lower case, as written after a company's name (anywhere in a name they rule it out). */
export const LEGAL_FORMS = new Set([
  "inc",
  "inc.",
  "gmbh",
  "ltd",
  "ltd.",
  "llc",
  "llp",
  "ag",
  "co",
  // "Co., Ltd." cut at its comma leaves "Park Systems Co.".
  "co.",
  "s.a.",
  "sa",
  "sas",
  "sarl",
  "s.l.",
  "spa",
  "s.p.a.",
  "srl",
  "s.r.l.",
  "bv",
  "b.v.",
  "nv",
  "n.v.",
  "kk",
  "k.k.",
  "oy",
  "oyj",
  "plc",
  "pty",
  "kft",
  "kft.",
  "zrt",
  "zrt.",
  "ltda",
  "ltda.",
  "sp.",
  "gbr",
  "ohg",
  "kg",
  "e.k.",
  "a.s.",
  "a.ş.",
  "s.r.o.",
  "d.o.o.",
  "ooo",
]);

/**
 * Legal forms that are also short words of names or particles ("AB" is the Welsh "ab", "AS" and
 * "AO" are syllables): a company's only as the last word.
 */
const LAST_WORD_LEGAL_FORMS = new Set([
  "ab",
  "as",
  "ao",
  "jsc",
  "lda",
  "lda.",
  "şti.",
  "sti.",
  "o.o.",
  "fz-llc",
  "corp.",
]);

/**
 * Business words company names end with, in the languages sites are written in. None is a family
 * name or a given name (hence no "Shoji", also a Japanese name, and no Chinese pinyin such as
 * "zixun", also a given name).
 */
const BUSINESS_WORDS = [
  // English
  "consulting",
  "consultants",
  "engineering",
  "partners",
  "group",
  "labs",
  "logistics",
  "design",
  "advisory",
  "solutions",
  "technologies",
  "systems",
  "holdings",
  "holding",
  "associates",
  "architects",
  "ventures",
  "industries",
  "software",
  "studio",
  "studios",
  "agency",
  "trading",
  // German, Dutch, Nordic
  "beratung",
  "bau",
  "technik",
  "logistik",
  "partner",
  "immobilien",
  "agentur",
  "advies",
  "bouw",
  "logistiek",
  "techniek",
  "konsult",
  "bygg",
  "teknik",
  "radgivning",
  "logistikk",
  "teknikk",
  // French, Spanish, Portuguese, Italian
  "conseil",
  "atelier",
  "architectes",
  "avocats",
  "transports",
  "asesores",
  "logistica",
  "abogados",
  "ingenieria",
  "consultores",
  "grupo",
  "engenharia",
  "advogados",
  "solucoes",
  "consulenze",
  "ingegneria",
  "avvocati",
  // Polish, Turkish, Hungarian, Russian (romanized)
  "doradztwo",
  "budownictwo",
  "logistyka",
  "kancelaria",
  "technika",
  "danismanlik",
  "insaat",
  "lojistik",
  "muhendislik",
  "hukuk",
  "tanacsado",
  "epito",
  "logisztika",
  "mernoki",
  "konsalting",
  "logistika",
  "tekhnika",
  "stroy",
  "invest",
  // Vietnamese and Japanese (romanized), Arabic (romanized)
  "tuvan",
  "xaydung",
  "congnghe",
  "thuongmai",
  "kogyo",
  "sekkei",
  "giken",
  "tijara",
  "handasa",
];

/** Words that, written last, make a capitalised run of words a company's name rather than a person's. */
const COMPANY_LAST_WORDS = new Set([...LEGAL_FORMS, ...LAST_WORD_LEGAL_FORMS, ...BUSINESS_WORDS]);

/** Whether a word, as written, is a legal form ("LLP", "Co.", "Ltd.", "AS"), wherever it stands. */
export function isLegalForm(word: string): boolean {
  const w = word.toLowerCase().replace(/[,;]$/, "");
  return LEGAL_FORMS.has(w) || LAST_WORD_LEGAL_FORMS.has(w);
}

/** Whether the last of a name's words is a legal form or a business word ("Hendriks Engineering", "Müller Consulting Inc."). */
export function endsLikeCompany(words: readonly string[]): boolean {
  const last = words.at(-1);
  return last !== undefined && COMPANY_LAST_WORDS.has(last.toLowerCase().replace(/[,;]$/, ""));
}
