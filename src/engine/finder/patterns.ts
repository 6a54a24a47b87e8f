import { spelledAsAddress } from "../people/cyrillic-romanizations.js";
import {
  hasParticle,
  type NordicSpelling,
  nicknamesOf,
  nordicMatters,
  type PartForm,
  type PersonName,
  partSpellings,
  partVariants,
  prefixIsPartOfName,
  type Transliteration,
  transliterationMatters,
} from "../people/names.js";
import { scriptSpellings } from "../people/script-skeletons.js";

/** Address formats worth supporting (engine notes); `{f}` is an initial, `{m}` the middle initial. */
export const PATTERNS = [
  "{first}",
  "{last}",
  "{first}{last}",
  "{first}.{last}",
  "{first}_{last}",
  "{first}-{last}",
  "{f}{last}",
  "{f}.{last}",
  "{f}_{last}",
  "{first}{l}",
  "{first}.{l}",
  "{last}{first}",
  "{last}.{first}",
  "{last}_{first}",
  "{last}{f}",
  "{last}.{f}",
  "{l}{first}",
  "{f}{l}",
  "{f}{m}{last}",
] as const;
export type Pattern = (typeof PATTERNS)[number];

/**
 * A weak prior over formats, used only to temper shares inferred from few addresses and to break
 * ties. It is an assumption (formats commonly seen on company sites), not something measured here;
 * with PRIOR_WEIGHT = 2 it counts as much as two observed addresses.
 */
const PRIOR_RAW: Record<Pattern, number> = {
  "{first}.{last}": 30,
  "{first}": 20,
  "{f}{last}": 15,
  "{first}{last}": 8,
  "{f}.{last}": 5,
  "{first}_{last}": 3,
  "{last}": 3,
  "{first}{l}": 3,
  "{f}{l}": 2,
  "{first}-{last}": 2,
  "{last}.{first}": 1.5,
  "{last}{first}": 1,
  "{first}.{l}": 1,
  "{f}_{last}": 1,
  "{last}{f}": 1,
  "{last}_{first}": 0.5,
  "{last}.{f}": 0.5,
  "{l}{first}": 0.5,
  "{f}{m}{last}": 0.5,
};
const PRIOR_TOTAL = Object.values(PRIOR_RAW).reduce((a, b) => a + b, 0);
export const GLOBAL_PRIOR: Record<Pattern, number> = Object.fromEntries(
  PATTERNS.map((p) => [p, PRIOR_RAW[p] / PRIOR_TOTAL]),
) as Record<Pattern, number>;
export const PRIOR_WEIGHT = 2;

interface Tokens {
  first: string;
  last: string;
  m: string;
  /** Which form of a several-word given name `first` is ("Hans-Peter" → hanspeter, hans-peter, hans); null for a one-word name or a nickname. */
  firstForm: PartForm | null;
  /** Which form of a several-word family name `last` is (null for a one-word name). */
  lastForm: PartForm | null;
}

function render(pattern: Pattern, t: Tokens): string | null {
  if (!t.first || !t.last) return null;
  if (pattern.includes("{m}") && !t.m) return null;
  return pattern
    .replace("{first}", t.first)
    .replace("{last}", t.last)
    .replace("{f}", t.first.charAt(0))
    .replace("{l}", t.last.charAt(0))
    .replace("{m}", t.m);
}

function tokenSets(name: PersonName, style: Transliteration, nordic: NordicSpelling, withNicknames = false): Tokens[] {
  const spelled = partSpellings(name.first, style, nordic);
  const severalFirst = spelled.length > 1;
  const firsts: { text: string; form: PartForm | null }[] = spelled.map((f) => ({
    text: f.text,
    form: severalFirst ? f.form : null,
  }));
  if (withNicknames)
    for (const n of nicknamesOf(name.first))
      if (!firsts.some((f) => f.text === n)) firsts.push({ text: n, form: null });
  const lasts = partSpellings(name.last, style, nordic);
  const m = name.middle ? (partVariants(name.middle, style, nordic)[0]?.[0] ?? "") : "";
  const severalLast = lasts.length > 1;
  const out: Tokens[] = [];
  for (const first of firsts) {
    for (const last of lasts)
      out.push({
        first: first.text,
        last: last.text,
        m,
        firstForm: first.form,
        lastForm: severalLast ? last.form : null,
      });
  }
  return out;
}

/** How a domain spells names, as learnt from its own addresses. */
export interface Spelling {
  /** Umlauts as bare letters or as digraphs (ü → u or ue). */
  style: Transliteration;
  /** ø and å as bare letters or as digraphs (ø → o or oe, å → a or aa). */
  nordic?: NordicSpelling | null;
  /** Which form of two family names the domain uses (García López → garcia), when its addresses show it. */
  lastForm?: PartForm | null;
  /** Which form of a family name with a particle the domain uses (dos Santos → santos or dossantos). */
  particleForm?: PartForm | null;
  /** Which form of a several-word given name the domain uses (Hans-Peter → hans-peter), when its addresses show it. */
  firstForm?: PartForm | null;
}

/** The address local part a pattern gives for a name, in the domain's spelling (or the preferred one: all pieces joined). */
export function applyPattern(
  pattern: Pattern,
  name: PersonName,
  spelling: Transliteration | Spelling = "plain",
): string | null {
  const {
    style,
    nordic = null,
    lastForm = null,
    particleForm = null,
    firstForm = null,
  } = typeof spelling === "string" ? { style: spelling } : spelling;
  const sets = tokenSets(name, style, nordic ?? "plain");
  const usual = sets[0];
  if (!usual) return null;
  const familyForm = prefixIsPartOfName(name.last) ? null : hasParticle(name.last) ? particleForm : lastForm;
  const firstText = (firstForm && sets.find((t) => t.firstForm === firstForm)?.first) || usual.first;
  const lastText = (familyForm && sets.find((t) => t.lastForm === familyForm)?.last) || usual.last;
  return render(pattern, { ...usual, first: firstText, last: lastText });
}

export interface PatternMatch {
  patterns: Pattern[];
  /** Which umlaut spelling produced the match, when the two differ for this name and only one matched. */
  style: Transliteration | null;
  /** Which Nordic spelling produced the match, when the two differ for this name and only one matched. */
  nordic: NordicSpelling | null;
  /** Which form of two family names matched, when only one did. */
  lastForm: PartForm | null;
  /** Which form of a family name with a particle matched, when only one did. */
  particleForm: PartForm | null;
  /** Which form of a several-word given name matched, when only one did. */
  firstForm: PartForm | null;
}

/** Every pattern that turns this name into this local part (any spelling of the name). */
export function matchPatterns(localPart: string, shown: PersonName): PatternMatch {
  const local = localPart.toLowerCase();
  // A name shown in Cyrillic is spelled in the romanization the address uses (Пётр → petr, pyotr).
  const spelled = spelledAsAddress(local, shown);
  // One in Arabic, Hebrew or Thai script only, as the pieces of the address its consonants agree with.
  for (const name of scriptSpellings(local, spelled)) {
    const match = matchSpelled(local, name);
    if (match.patterns.length) return match;
  }
  return matchSpelled(local, spelled);
}

function matchSpelled(local: string, name: PersonName): PatternMatch {
  // A given name shown only as its initial ("K. Srinivasan") says nothing of how the whole name is written.
  const initialOnly = /^\p{L}\.?$/u.test(name.first.trim());
  const familyForms = new Set<PartForm>();
  const firstForms = new Set<PartForm>();
  const styles = transliterationMatters(name) ? (["plain", "expanded"] as const) : (["plain"] as const);
  const nordics = nordicMatters(name) ? (["plain", "expanded"] as const) : (["plain"] as const);
  const patterns = new Set<Pattern>();
  const hitStyles = new Set<Transliteration>();
  const hitNordics = new Set<NordicSpelling>();
  for (const style of styles) {
    for (const nordic of nordics) {
      for (const t of tokenSets(name, style, nordic, true)) {
        for (const p of PATTERNS) {
          if (initialOnly && p.includes("{first}")) continue;
          if (render(p, t) !== local) continue;
          patterns.add(p);
          hitStyles.add(style);
          hitNordics.add(nordic);
          // An initial shows the form too when the forms' initials differ (van Dijk → v or d).
          if (t.lastForm && (p.includes("{last}") || p.includes("{l}"))) familyForms.add(t.lastForm);
          if (t.firstForm && (p.includes("{first}") || p.includes("{f}"))) firstForms.add(t.firstForm);
        }
      }
    }
  }
  const only = <T>(set: Set<T>, choices: number) => (choices > 1 ? single(set) : null);
  // A Gaelic prefix or a capitalised one ("De Luca") is written joined by every domain: its match says nothing about the domain's habits.
  const familyForm = prefixIsPartOfName(name.last) ? null : single(familyForms);
  const particle = hasParticle(name.last);
  return {
    patterns: [...patterns],
    style: only(hitStyles, styles.length),
    nordic: only(hitNordics, nordics.length),
    lastForm: particle ? null : familyForm,
    particleForm: particle ? familyForm : null,
    firstForm: single(firstForms),
  };
}

/** The element of a set of one, else null. */
function single<T>(set: Set<T>): T | null {
  if (set.size !== 1) return null;
  const [one] = set;
  return one ?? null;
}

export interface NamedAddress {
  localPart: string;
  name: PersonName;
}

export interface PatternShare {
  pattern: Pattern;
  /** Observed votes (each address splits one vote among the patterns it matches). */
  votes: number;
  /** Posterior share in [0, 1], smoothed with the global prior. */
  share: number;
}

export interface PatternInference {
  /** Patterns with at least some observed vote, by share, highest first. */
  shares: PatternShare[];
  /** Addresses that matched at least one pattern. */
  observations: number;
  /** Spelling the domain uses for umlauts, when its addresses show it. */
  style: Transliteration | null;
  /** Spelling the domain uses for ø and å, when its addresses show it. */
  nordic: NordicSpelling | null;
  /** Form of family names with a particle the domain uses, when its addresses show it. */
  particleForm: PartForm | null;
  /** Form of several-word family names the domain uses, when its addresses show it. */
  lastForm: PartForm | null;
  /** Form of several-word given names the domain uses, when its addresses show it. */
  firstForm: PartForm | null;
  /**
   * How sure the top format is, in [0, 1]: its share of the observed votes, discounted when there
   * are few observations (one address gives at most 0.5, four about 0.8).
   */
  confidence: number;
}

/** One address's (or one stated convention's) support for formats, and how it spells names. */
export type FormatObservation = Pick<
  PatternMatch,
  "patterns" | "style" | "nordic" | "lastForm" | "particleForm" | "firstForm"
>;

/**
 * Infers a domain's address formats from its known (name, address) pairs: each address splits one
 * vote among the patterns it matches, and the shares are smoothed with GLOBAL_PRIOR so that one
 * address does not make a format look certain. The domain's spelling habits (transliteration,
 * which part of a double family name) are voted on the same way.
 */
export function inferPatterns(samples: readonly NamedAddress[]): PatternInference {
  return tallyFormats(samples.map((s) => matchPatterns(s.localPart, s.name)));
}

/** Shares, spelling habits and confidence from observations (see inferPatterns). */
export function tallyFormats(observed: readonly FormatObservation[]): PatternInference {
  const votes = new Map<Pattern, number>();
  const habits = {
    style: new Map<Transliteration, number>(),
    nordic: new Map<NordicSpelling, number>(),
    lastForm: new Map<PartForm, number>(),
    particleForm: new Map<PartForm, number>(),
    firstForm: new Map<PartForm, number>(),
  };
  const count = <T>(m: Map<T, number>, v: T | null) => v && m.set(v, (m.get(v) ?? 0) + 1);
  let observations = 0;
  for (const o of observed) {
    if (o.patterns.length === 0) continue;
    observations++;
    for (const p of o.patterns) votes.set(p, (votes.get(p) ?? 0) + 1 / o.patterns.length);
    count(habits.style, o.style);
    count(habits.nordic, o.nordic);
    count(habits.lastForm, o.lastForm);
    count(habits.particleForm, o.particleForm);
    count(habits.firstForm, o.firstForm);
  }
  const denominator = observations + PRIOR_WEIGHT;
  const shares = [...votes.entries()]
    .map(([pattern, v]) => ({ pattern, votes: v, share: (v + PRIOR_WEIGHT * GLOBAL_PRIOR[pattern]) / denominator }))
    .sort((a, b) => b.share - a.share || b.votes - a.votes);
  const top = shares[0];
  const confidence = top && observations ? (top.votes / observations) * (observations / (observations + 1)) : 0;
  return {
    shares,
    observations,
    style: majority(habits.style),
    nordic: majority(habits.nordic),
    lastForm: majority(habits.lastForm),
    particleForm: majority(habits.particleForm),
    firstForm: majority(habits.firstForm),
    confidence: Math.round(confidence * 100) / 100,
  };
}

/** The habit most addresses show, or null when none did or two tie. */
function majority<T>(votes: Map<T, number>): T | null {
  const [first, second] = [...votes.entries()].sort((a, b) => b[1] - a[1]);
  return first && (!second || first[1] > second[1]) ? first[0] : null;
}

/**
 * Integer percentages summing to 100 over the observed formats (largest-remainder rounding), as the
 * email-format answer shows them; formats that round to 0 are left out.
 */
export function percentages(shares: readonly PatternShare[]): { format: Pattern; percentage: number }[] {
  const total = shares.reduce((a, s) => a + s.share, 0);
  if (total <= 0) return [];
  const exact = shares.map((s) => ({ format: s.pattern, raw: (s.share / total) * 100 }));
  const floored = exact.map((e) => ({ ...e, percentage: Math.floor(e.raw) }));
  let left = 100 - floored.reduce((a, e) => a + e.percentage, 0);
  const byRemainder = [...floored].sort((a, b) => b.raw - b.percentage - (a.raw - a.percentage));
  for (const e of byRemainder) {
    if (left <= 0) break;
    e.percentage++;
    left--;
  }
  return floored
    .filter((e) => e.percentage > 0)
    .sort((a, b) => b.percentage - a.percentage)
    .map(({ format, percentage }) => ({ format, percentage }));
}
