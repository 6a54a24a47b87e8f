import { asciiFold } from "../../platform/ascii-fold.js";
import { boundedMap } from "../../platform/isolate-state.js";
import { endsLikeCompany } from "../data/company-words.js";
import {
  ACRONYMS,
  ALWAYS_TITLES,
  HONORIFICS,
  NICKNAME_GROUPS,
  NOT_NAME_WORDS,
  PARTICLES,
  SUFFIXES,
} from "../data/name-words.js";

/**
 * Person names as mail systems spell them: lowercase ASCII letters. Transliteration is ambiguous
 * (Müller is "mueller" on some domains and "muller" on others), so every part yields its spellings
 * and the domain's observed addresses decide which one is used (see patterns.ts).
 */

export interface PersonName {
  first: string;
  last: string;
  middle?: string;
}

/** How umlauts are spelled: "plain" = bare letters (ü→u), "expanded" = German digraphs (ü→ue). */
export type Transliteration = "plain" | "expanded";
/** How the Nordic letters ø and å are spelled: "plain" = o, a; "expanded" = oe, aa. A domain may do one and not the other. */
export type NordicSpelling = "plain" | "expanded";

const APOSTROPHES = /['’ʼ`´‘]/g;

// Names repeat across a site's addresses (and the finder asks for the same ones): spellings are memoised per isolate.
const spellings = boundedMap<string, string>("nameSpellings");

function ascii(part: string, style: Transliteration, nordic: NordicSpelling = "plain"): string {
  const key = `${style}:${nordic}:${part}`;
  const known = spellings.get(key);
  if (known !== undefined) return known;
  const value = spell(part, style, nordic);
  spellings.set(key, value);
  return value;
}

function spell(part: string, style: Transliteration, nordic: NordicSpelling): string {
  const s = part.normalize("NFC").toLowerCase().replace(APOSTROPHES, "");
  return asciiFold(s, { scripts: "transliterate", umlauts: style, nordic }).toLowerCase();
}

/** Which form of a several-word or hyphenated part a spelling is: all pieces joined, hyphenated, only the first or last piece. */
export type PartForm = "joined" | "hyphen" | "first" | "last";

/**
 * Spellings of one name part, most likely first: hyphenated and multi-word parts are tried joined
 * ("mullerludenscheidt"), with the hyphen kept, and as their first and last pieces ("García López"
 * → "garcialopez", "garcia", "lopez": Spanish domains often use the first surname only).
 */
export function partSpellings(
  part: string,
  style: Transliteration = "plain",
  nordic: NordicSpelling = "plain",
): { text: string; form: PartForm }[] {
  const text = ascii(part, style, nordic);
  const pieces = text
    .split(/[\s-]+/)
    .map((p) => p.replace(/[^a-z0-9]/g, ""))
    .filter(Boolean);
  if (pieces.length === 0) return [];
  const out: { text: string; form: PartForm }[] = [{ text: pieces.join(""), form: "joined" }];
  if (pieces.length > 1) {
    // Hyphenated even when written with a space: "García López" → garcia-lopez on some domains.
    out.push({ text: pieces.join("-"), form: "hyphen" });
    out.push({ text: pieces[0], form: "first" }, { text: pieces[pieces.length - 1], form: "last" });
  }
  const seen = new Set<string>();
  return out.filter((o) => !seen.has(o.text) && seen.add(o.text));
}

export function partVariants(
  part: string,
  style: Transliteration = "plain",
  nordic: NordicSpelling = "plain",
): string[] {
  return partSpellings(part, style, nordic).map((s) => s.text);
}

const NICKNAMES = new Map<string, Set<string>>();
for (const group of NICKNAME_GROUPS) {
  const names = group.split(" ");
  for (const n of names) {
    const set = NICKNAMES.get(n) ?? new Set<string>();
    for (const m of names) if (m !== n) set.add(m);
    NICKNAMES.set(n, set);
  }
}

/** Other given names the same person goes by (Robert → bob, rob, ...), folded to ASCII. */
export function nicknamesOf(first: string): string[] {
  return [...(NICKNAMES.get(nameKey(first)) ?? [])];
}

/** Whether two given names are the same or one is a usual short form of the other. */
export function sameGivenName(a: string, b: string): boolean {
  const ka = nameKey(a);
  const kb = nameKey(b);
  return ka === kb || (NICKNAMES.get(ka)?.has(kb) ?? false);
}

/** True when the two umlaut spellings spell this name differently (only then can evidence pick one). */
export function transliterationMatters(name: PersonName): boolean {
  return /[äöü]/i.test(`${name.first} ${name.last} ${name.middle ?? ""}`);
}

/** True when the two Nordic spellings spell this name differently. */
export function nordicMatters(name: PersonName): boolean {
  return /[øå]/i.test(`${name.first} ${name.last} ${name.middle ?? ""}`);
}

/**
 * Whether a several-word family name is a particle and a name ("van der Berg", "dos Santos", "de
 * Sousa"), which domains write joined or without the particle, rather than two family names
 * ("García López"), which they write joined or as the first one only.
 */
export function hasParticle(last: string): boolean {
  const words = last.trim().split(/\s+/);
  return (
    words.length > 1 && !prefixIsPartOfName(last) && words.slice(0, -1).every((w) => PARTICLES.has(w.toLowerCase()))
  );
}

/** A particle alone ("de", "van") is never a whole family or given name. */
export function isParticle(word: string): boolean {
  return PARTICLES.has(word.trim().toLowerCase());
}

/** Irish and Welsh prefixes belong to the name like O' does ("Ó Briain" → obriain): never dropped, not a habit to learn. */
const GAELIC_PREFIXES = new Set(["ó", "ua", "mac", "nic", "ní", "ap", "ab", "ferch", "verch"]);

export function hasGaelicPrefix(last: string): boolean {
  const words = last.trim().split(/\s+/);
  return words.length > 1 && GAELIC_PREFIXES.has(words[0].toLowerCase());
}

/**
 * A prefix every domain writes joined, so that its match says nothing about the domain's habits: a
 * Gaelic one ("Ó Briain"), or one capitalised particle before one name, which makes one family name
 * ("De Luca", "Di Stefano", "Van Damme" → deluca), unlike a lower-case particle ("do Carmo", "ter
 * Horst"), which domains join or drop. "Van der Meer" (two particles) stays a particle.
 */
export function prefixIsPartOfName(last: string): boolean {
  const words = last.trim().split(/\s+/);
  const [prefix = ""] = words;
  return (
    hasGaelicPrefix(last) ||
    (words.length === 2 && /^\p{Lu}\p{Ll}*$/u.test(prefix) && PARTICLES.has(prefix.toLowerCase()))
  );
}

const bare = (token: string) => token.toLowerCase().replace(/[.,]/g, "");
/** Academic titles Polish writes in lower case before a name ("mgr Wojciech Szymański", "dr inż. Jan Nowak"). */
const LOWER_CASE_TITLES = new Set(["dr", "mgr", "inż", "prof"]);
const isTitle = (token: string) =>
  (/^\p{Lu}/u.test(token) || LOWER_CASE_TITLES.has(bare(token))) &&
  HONORIFICS.has(bare(token)) &&
  (ALWAYS_TITLES.has(bare(token)) || token.endsWith("."));

/**
 * Splits a full name into first / middle / last. "Doe, Jane" is read as last-name-first; titles
 * (Dr., Prof.) and suffixes (Jr., PhD) are dropped. Null when fewer than two name tokens remain.
 */
export function splitFullName(fullName: string): PersonName | null {
  const tokens = nameTokens(fullName);
  return tokens.length < 2 ? null : usualSplit(tokens);
}

/** The family name starts at the first particle after the given name, or is the last token. */
function usualSplit(tokens: readonly string[]): PersonName {
  let lastStart = tokens.length - 1;
  for (let i = 1; i < tokens.length - 1; i++) {
    if (PARTICLES.has(tokens[i].toLowerCase())) {
      lastStart = i;
      break;
    }
  }
  return build(tokens.slice(0, 1), tokens.slice(1, lastStart), tokens.slice(lastStart));
}

function build(first: readonly string[], middle: readonly string[], last: readonly string[]): PersonName {
  const m = middle.join(" ");
  return m
    ? { first: first.join(" "), last: last.join(" "), middle: m }
    : { first: first.join(" "), last: last.join(" ") };
}

/** Name tokens without titles and suffixes; "Doe, Jane" is turned round. */
function nameTokens(fullName: string): string[] {
  return parseName(fullName).tokens;
}

/**
 * The name tokens of a displayed name, given name first when the page says which is which: "Doe,
 * Jane" is turned round (`turned`), titles (Dr., Prof.) and suffixes (Jr., PhD) are dropped.
 */
export function parseName(fullName: string): { tokens: string[]; turned: boolean; nickname: string | null } {
  const quoted = QUOTED_NICKNAME.exec(fullName);
  let text = fullName.replace(QUOTED_NICKNAME, " ").normalize("NFC").replace(/\s+/g, " ").trim();
  if (!text) return { tokens: [], turned: false, nickname: null };
  let turned = false;
  const comma = text.split(",");
  const [beforeComma, afterComma] = comma;
  if (comma.length === 2 && beforeComma.trim().split(" ").length <= 3 && !SUFFIXES.has(bare(afterComma.trim()))) {
    text = `${afterComma.trim()} ${beforeComma.trim()}`;
    turned = true;
  }
  let tokens = text.split(" ").filter(Boolean);
  // Titles anywhere ("Dr. Lakatos, Tamás" turns into "Tamás Dr. Lakatos"), suffixes at the end. A
  // one-letter title ("M." for Monsieur) is one only before the name: "Inês M. das Neves" has an initial.
  const leading = fullName.trim().split(/\s+/)[0];
  const untitled = tokens.filter((t) => !isTitle(t) || (/^\p{Lu}\.$/u.test(t) && t !== leading));
  if (untitled.length >= 2) tokens = untitled;
  while (tokens.length > 2 && SUFFIXES.has(bare(tokens[tokens.length - 1]))) tokens = tokens.slice(0, -1);
  return { tokens: tokens.map((t) => t.replace(/,$/, "")).filter(Boolean), turned, nickname: quoted?.[1] ?? null };
}

/** A nickname written in quotes or brackets inside a name: 'Katherine "Kate" Sullivan', "Robert (Bob) Smith". */
export const QUOTED_NICKNAME = /\s*["“„«‘(]\s*(\p{Lu}[\p{L}'’.-]{1,20})\s*["”»’)]\s*/u;

/** A reading of a name; `reversed` marks the family-name-first one. */
export type NameSplit = PersonName & { reversed?: boolean };

/**
 * Readings of a full name, the usual one first: with three or more words, every place the family
 * name could start ("María José | García López", "Javier | Ruiz Moreno"), compound given names
 * ("Juan Carlos | Pérez"), and — flagged `reversed` — family name first ("Nguyễn Thị Mai",
 * "Tanaka Taro"). Evidence (the domain's addresses) decides which reading is meant.
 */
export function nameSplits(fullName: string): NameSplit[] {
  return splitsOfTokens(nameTokens(fullName));
}

export function splitsOfTokens(tokens: readonly string[]): NameSplit[] {
  const n = tokens.length;
  if (n < 2) return [];
  const out: NameSplit[] = [usualSplit(tokens)];
  for (let k = 1; k < n; k++) out.push(build(tokens.slice(0, 1), tokens.slice(1, k), tokens.slice(k)));
  for (let k = 2; k < n; k++) out.push(build(tokens.slice(0, k), [], tokens.slice(k)));
  // Family name first: the family name is the first one to three words ("Nguyễn | Thị Mai",
  // "van Leeuwen | Jeroen", "García López | María"); the given name is the last word, or all the
  // rest ("Kim | Min Jun").
  for (let k = 1; k < Math.min(n, 4); k++) {
    out.push({ ...build(tokens.slice(n - 1), tokens.slice(k, n - 1), tokens.slice(0, k)), reversed: true });
    if (n - k > 1) out.push({ ...build(tokens.slice(k), [], tokens.slice(0, k)), reversed: true });
    // "Dekker Bram Cornelis": a family name first, then the given name and a middle name.
    if (n - k > 1)
      out.push({ ...build(tokens.slice(k, k + 1), tokens.slice(k + 1), tokens.slice(0, k)), reversed: true });
  }
  const seen = new Set<string>();
  return out.filter((p) => {
    const key = `${p.first}|${p.middle ?? ""}|${p.last}|${p.reversed ? 1 : 0}`;
    return !seen.has(key) && seen.add(key);
  });
}

export function fullNameOf(name: PersonName): string {
  return [name.first, name.middle, name.last].filter(Boolean).join(" ");
}

/** Letters only, for comparing names regardless of accents and case ("José" = "jose"). */
export function nameKey(text: string): string {
  return ascii(text, "plain").replace(/[^a-z0-9]/g, "");
}

const NAME_TOKEN =
  /^(?:\p{Lu}[\p{L}'’.-]*|['’]\p{Lu}|(?:van|von|de|der|den|da|di|du|del|della|la|le|ter|ten|dos|das|do|zu|ap|ab|ferch|y|e|in|'t|’t|het|op|te|uit|aan|bij)|\p{Lu}\.)$/u;

/**
 * A prose word that starts a run of particles before a family name ("in 't Veld", "in den Bosch"):
 * part of the name, not the preposition of a sentence ("Welcome in Amsterdam" has no second particle).
 */
function opensParticleRun(tokens: readonly string[], i: number): boolean {
  const next = tokens[i + 1] ?? "";
  return (
    i > 0 &&
    PARTICLES.has((tokens[i] ?? "").toLowerCase()) &&
    PARTICLES.has(next.toLowerCase()) &&
    /^\p{Lu}/u.test(tokens[i + 2] ?? "")
  );
}

/** Whether a short line of page text reads like a person's name ("Jane Doe", "Anna van der Berg", "Zoë O'Brien"). */
export function looksLikePersonName(text: string): boolean {
  const t = text.replace(QUOTED_NICKNAME, " ").replace(/\s+/g, " ").trim();
  if (t.length < 4 || t.length > 60 || /[\d@:/|()[\]{}]/.test(t)) return false;
  const tokens = t.split(" ");
  // Particles and titles do not make a name long: "Eng. Anaïs Anne de la Fontaine".
  const words = tokens.filter((tok) => !PARTICLES.has(tok.toLowerCase()) && !isTitle(tok)).length;
  if (tokens.length < 2 || words > 5 || tokens.length > 8) return false;
  if (tokens.some((tok, i) => NOT_NAME_WORDS.has(tok.toLowerCase()) && !opensParticleRun(tokens, i))) return false;
  // "Hendriks Engineering", "Müller Consulting Inc.": a company's name, capitalised like a person's.
  if (endsLikeCompany(tokens)) return false;
  if (!tokens.every((tok) => NAME_TOKEN.test(tok) || isTitle(tok))) return false;
  // At least two name words, one of them in mixed case: rules out acronyms such as "CEO CTO" and
  // keeps upper-cased family names ("TANAKA Hiroshi", "Ó BRIAIN Pádraig", "MCGRATH Niamh J.").
  const mixed = tokens.filter((tok) => /^\p{Lu}.*\p{Ll}/u.test(tok)).length;
  const upper = tokens.filter((tok) => /^\p{Lu}[\p{Lu}'’-]+$/u.test(tok) && !ACRONYMS.has(tok)).length;
  if (mixed >= 1 && mixed + upper >= 2) return true;
  // Given names as initials before one family name, as many Indian sites write them: "K. Srinivasan",
  // "R. K. Narayan", "SRINIVASAN K.".
  const initials = tokens.filter((tok) => /^\p{Lu}\.$/u.test(tok)).length;
  return mixed + upper === 1 && initials >= 1 && initials + mixed + upper === tokens.length;
}

/**
 * The middle name a displayed name shows beside the given and family names it states elsewhere
 * ("Hölzl Uwe T." for Uwe / Hölzl → "T."), or null when the displayed name is not that person's
 * or shows nothing more.
 */
export function middleShown(name: PersonName, shown: string): string | null {
  const tokens = parseName(shown).tokens;
  const keys = new Set([...name.first.split(/\s+/), ...name.last.split(/\s+/)].map((w) => nameKey(w)));
  const found = tokens.filter((t) => keys.has(nameKey(t)));
  if (found.length < keys.size) return null;
  const rest = tokens.filter((t) => !keys.has(nameKey(t)) && !isParticle(t));
  return rest.length > 0 && rest.length <= 2 ? rest.join(" ") : null;
}
