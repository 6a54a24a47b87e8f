import {
  hasGaelicPrefix,
  isParticle,
  type NameSplit,
  nameKey,
  type PersonName,
  parseName,
  partVariants,
  splitsOfTokens,
} from "./names.js";

/**
 * What a page tells about the name of an address's owner, before anyone decides which word is the
 * given name: either the name as the page shows it, with the cues a reader would use to tell its
 * order, or a name stated part by part (a vCard's N, JSON-LD givenName/familyName).
 */
export type NameEvidence =
  | {
      kind: "shown";
      /** The name as displayed ("Clara Dubois", "TANAKA Hiroshi", "Doe, Jane"). */
      text: string;
      /** The page is in a language whose names are written family name first (lang ja, zh, ko, vi, hu). */
      familyFirstPage: boolean;
    }
  | { kind: "stated"; name: PersonName };

/** One way to read a displayed name, and how plausible a reader would find it without other evidence. */
export interface Reading {
  name: PersonName;
  /**
   * 1 for a reading the page supports; lower for one it argues against (a family-name-first
   * reading of "Clara Dubois" on a French page). The domain's other addresses can still make a
   * low reading win: one convention explains all of a domain's people.
   */
  weight: number;
}

/** A family-name-first reading the page gives no cue for: possible ("Tanaka Hiroshi" on an English page), not preferred. */
export const UNCUED_REVERSED = 0.25;
/**
 * A given-name-first reading on a page in a family-name-first language: the language's own order
 * is family name first ("Nagy Péter", "Wang Wei"), yet foreign names on it may be written the
 * other way, so the domain's other addresses can still choose it.
 */
export const AGAINST_PAGE_ORDER = 0.5;
/** A reading the page argues against: the upper-cased family name or the "Family, Given" comma says otherwise. */
export const CONTRADICTED = 0.1;

/** Languages whose names are written family name first. */
const FAMILY_FIRST_LANGUAGES = new Set(["ja", "zh", "ko", "vi", "hu"]);

export function isFamilyFirstLanguage(lang: string): boolean {
  return FAMILY_FIRST_LANGUAGES.has(lang.trim().toLowerCase().split(/[-_]/)[0] ?? "");
}

/** An initial with its dot ("J."): a middle name or a given name, never part of a family name. */
const INITIAL = /^\p{Lu}\.$/u;
/** An upper-cased word of a family name: "TANAKA", "O'BRIEN", and the Dutch "'T" of "VAN 'T HOF". */
const isUpperWord = (token: string) => /^(?:\p{Lu}[\p{Lu}'’.-]*\p{Lu}|['’]\p{Lu}+)$/u.test(token);
const hasLower = (token: string) => /\p{Ll}/u.test(token);
/** "TANAKA" → "Tanaka", "O'BRIEN" → "O'Brien". */
const titleCase = (token: string) =>
  token.toLowerCase().replace(/(^|[\s'’-])(\p{Ll})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase());

/** Every reading of a name as evidence gives it, each with its weight; the usual reading first. */
export function readingsOf(evidence: NameEvidence): Reading[] {
  if (evidence.kind === "stated") return [{ name: evidence.name, weight: 1 }];
  const { tokens, turned, nickname } = parseName(evidence.text);
  if (tokens.length < 2) return [];
  const readings = [...readingsOfTokens(tokens, turned, evidence.familyFirstPage)];
  // "Trần, Thị Dũng": written family name first with a comma, the given name may be the last word (Vietnamese).
  if (turned) {
    for (const r of readings.filter((r) => r.weight === 1 && !r.name.middle && r.name.first.includes(" "))) {
      const given = r.name.first.split(" ");
      const lastGiven = given.at(-1);
      if (lastGiven && !given.some((w) => INITIAL.test(w)))
        readings.push({
          name: { first: lastGiven, middle: given.slice(0, -1).join(" "), last: r.name.last },
          weight: 1,
        });
    }
  }
  // The name a person goes by, written beside the given name ('Katherine "Kate" Sullivan'), is as good a reading.
  if (!nickname) return readings;
  return [
    ...readings,
    ...readings.filter((r) => r.weight === 1).map((r) => ({ name: { ...r.name, first: nickname }, weight: 1 })),
  ];
}

function readingsOfTokens(tokens: readonly string[], turned: boolean, familyFirstPage: boolean): Reading[] {
  const words = tokens.map((t) => (isUpperWord(t) ? titleCase(t) : t));
  const family = upperFamily(tokens);
  const readings = splitsOfTokens(words).map((split) => ({
    name: withoutFlag(split),
    weight: weightOf(split, family?.name ?? null, turned, familyFirstPage),
  }));
  const patronymic = family || turned ? null : patronymicReading(words);
  if (patronymic)
    return [
      { name: patronymic, weight: 1 },
      ...readings.map((r) => ({ ...r, weight: Math.min(r.weight, CONTRADICTED) })),
    ];
  if (!family) return readings;
  // The upper-cased words are the family name, wherever they stand; the rest is the given name
  // (with any further words as middle names, or as a two-word given name).
  const given = words.filter((_, i) => !family.at.includes(i));
  const [firstGiven] = given;
  if (firstGiven === undefined) return readings;
  // Written family name first ("NGUYỄN Thị Mai"), the given name comes last; otherwise first.
  // An initial ("J.") is a middle name, never the given name.
  const familyFirst = family.at[0] === 0;
  const names = given.filter((w) => !INITIAL.test(w));
  const first = (familyFirst ? names[names.length - 1] : names[0]) ?? firstGiven;
  const middle = given.filter((w) => w !== first);
  const stated: PersonName[] = [{ first, last: family.name, ...(middle.length ? { middle: middle.join(" ") } : {}) }];
  // "MULDER Pieter Maria": in European names the given name leads what follows the family name.
  const [leading] = names;
  if (familyFirst && leading !== undefined && names.length > 1)
    stated.push({ first: leading, last: family.name, middle: given.filter((w) => w !== leading).join(" ") });
  if (given.length > 1) stated.push({ first: given.join(" "), last: family.name });
  return [...stated.map((name) => ({ name, weight: 1 })), ...readings.filter((r) => r.weight < 1)];
}

/**
 * An East Slavic patronymic (Сергеевич, Сергеевна, Іванівна; romanized Sergeyevich, Sergeyevna):
 * a name of three words has one either in the middle, given name first ("Юлия Сергеевна Иванова"),
 * or at the end, family name first as Russian documents write it ("Иванова Юлия Сергеевна").
 */
const PATRONYMIC =
  /^\p{Lu}\p{Ll}{2,}(?:ович|евич|ёвич|ьевич|овна|евна|ёвна|ьевна|ична|інічна|івна|ївна|ovich|evich|ovna|evna|ichna|ivna|yivna)$/u;

/** Whether a displayed name carries an East Slavic patronymic ("Yuliya Sergeyevna Ivanova", "Иванова Юлия Сергеевна"). */
export function hasPatronymic(text: string): boolean {
  return parseName(text).tokens.some((t) => PATRONYMIC.test(t));
}

function patronymicReading(words: readonly string[]): PersonName | null {
  if (words.length !== 3) return null;
  const [a = "", b = "", c = ""] = words;
  if (PATRONYMIC.test(b) && !PATRONYMIC.test(c)) return { first: a, middle: b, last: c };
  if (PATRONYMIC.test(c) && !PATRONYMIC.test(b)) return { first: b, middle: c, last: a };
  return null;
}

/**
 * The upper-cased words among mixed-case ones, which are the family name ("TANAKA Hiroshi",
 * "Hiroshi TANAKA", "Ó BRIAIN Pádraig"); a one-letter word belongs to them when it stands beside
 * them ("Ó"), an initial with a dot does not ("J.").
 */
function upperFamily(tokens: readonly string[]): { at: number[]; name: string } | null {
  if (!tokens.some(hasLower)) return null;
  const at = tokens.map((t, i) => (isUpperWord(t) ? i : -1)).filter((i) => i >= 0);
  if (at.length === 0) return null;
  const beside = (t: string, i: number) => /^\p{Lu}$/u.test(t) && (at.includes(i - 1) || at.includes(i + 1));
  const all = tokens.map((t, i) => ({ t, i })).filter(({ t, i }) => at.includes(i) || beside(t, i));
  // A particle before the name is lower-case again ("VAN DIJK" → "van Dijk"), as written beside a given name.
  const word = (t: string, k: number) =>
    k < all.length - 1 && isParticle(t) && !hasGaelicPrefix(`${t} x`) ? t.toLowerCase() : titleCase(t);
  return { at: all.map(({ i }) => i), name: all.map(({ t }, k) => word(t, k)).join(" ") };
}

function weightOf(split: NameSplit, family: string | null, turned: boolean, familyFirstPage: boolean): number {
  if (isParticle(split.last) || isParticle(split.first)) return CONTRADICTED * UNCUED_REVERSED;
  // "Ingrid K. Møller" is never Ingrid of the "K. Møller" family.
  if (split.last.split(" ").some((w) => INITIAL.test(w))) return CONTRADICTED * UNCUED_REVERSED;
  // "Grzegorz J.": an initial after the given name is a middle name, not part of a two-word given name.
  if (split.first.includes(" ") && split.first.split(" ").some((w) => INITIAL.test(w)))
    return CONTRADICTED * UNCUED_REVERSED;
  // A particle leads the family name: "Tiago dos Santos" is never Tiago Dos of the Santos family.
  if (
    !split.reversed &&
    isParticle(split.first.split(" ").at(-1) ?? "") &&
    /^\p{Ll}/u.test(split.first.split(" ").at(-1) ?? "")
  )
    return CONTRADICTED * UNCUED_REVERSED;
  if (family !== null) return split.last === family ? 1 : CONTRADICTED;
  if (turned) return split.reversed ? CONTRADICTED : 1;
  if (split.reversed) return familyFirstPage ? 1 : UNCUED_REVERSED;
  return familyFirstPage ? AGAINST_PAGE_ORDER : 1;
}

/**
 * A reading whose given name is shown only as an initial ("L. Sharma", as many Indian sites write
 * names), completed from the address it is read for when that spells the family name and, beside
 * it, a longer given name starting with the initial (`lakshmi.sharma@` → Lakshmi Sharma): the
 * address shows what the page abbreviates. Null when the address does not say.
 */
export function givenSpelledOut(localPart: string, reading: Reading): Reading | null {
  const { first, last, middle } = reading.name;
  if (!INITIAL.test(first) || middle) return null;
  const local = localPart.toLowerCase();
  const family = partVariants(last).find((v) => v.length >= 2 && local.includes(v));
  if (!family) return null;
  const at = local.indexOf(family);
  const rest = (local.slice(0, at) + local.slice(at + family.length)).split(/[._-]+/).filter(Boolean);
  const [given] = rest;
  if (rest.length !== 1 || given === undefined || given.length < 3 || !/^[a-z]+$/.test(given)) return null;
  if (given[0] !== nameKey(first)) return null;
  return { name: { first: given.charAt(0).toUpperCase() + given.slice(1), last }, weight: reading.weight };
}

function withoutFlag(split: NameSplit): PersonName {
  const { reversed: _reversed, ...name } = split;
  return name;
}
