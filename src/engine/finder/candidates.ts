import { nameKey, nicknamesOf, type PersonName } from "../people/names.js";
import { countryOfDomain } from "../web/extract/company.js";
import { type FormatCounts, NO_COUNTS } from "./format-tallies.js";
import { countrylessDomain } from "./name-culture.js";
import {
  applyPattern,
  GLOBAL_PRIOR,
  PATTERNS,
  type Pattern,
  type PatternInference,
  type Spelling,
} from "./patterns.js";
import { asRuleOuts, openDims, type RuleOuts, ruleOutFactor } from "./rule-outs.js";
import { spellingDims, spellingsOf, type Weighted } from "./spellings.js";

export { RULED_OUT_FACTOR } from "./rule-outs.js";

/**
 * A person's likely addresses at a domain whose pages show no format, most likely first, for the
 * SMTP confirmation (confirm.ts). Each candidate's weight is the product of:
 *  - its format's weight: the domain's own evidence when it has some (a weak inference), else how
 *    common the format is among the domains the index knows (format-tallies.ts), in the domain's
 *    country first, then everywhere, then the built-in prior (patterns.ts) for what the index has not
 *    counted yet, with family-name-first formats raised where companies write the family name first
 *    (Japan, China, Taiwan, Korea, Vietnam, Hungary: by the domain's country, or on a domain that
 *    names no country by most of its people's family names, name-culture.ts); formats under which
 *    two of the team page's people would share one address lowered;
 *  - its spelling's weight (spellings.ts): the habit the domain's own addresses show, where they
 *    show one (ü → u, ø → oe, a particle dropped, a double family name's first part), else how names
 *    are usually written there; the given name as typed before its usual nicknames;
 *  - what earlier checks at this domain left of the format in that spelling (rule-outs.ts): a
 *    rejected address rules out its format with the spelling habits that wrote it, and no more.
 * These weights are assumptions about the world, not measurements; they only order the candidates.
 */

export interface Candidate {
  local: string;
  pattern: Pattern;
  /** The spelling the candidate was written in (stored with a confirmed address). */
  spelling: Spelling;
  /** The name it was written from (a nickname when the candidate uses one). */
  name: PersonName;
  /** Written from one of the given name's usual nicknames, not the name as asked. */
  nickname?: boolean;
  weight: number;
}

const FAMILY_FIRST = new Set(["JP", "CN", "TW", "KR", "VN", "HU"]);
/**
 * How many domains the built-in prior weighs as against the index's counts of every country, and
 * how many of those the counts of the domain's own country weigh against: with a few dozen domains
 * counted the index starts to reorder the prior, and a country's own counts reorder it once they are
 * several dozen. Fewer are noise: with 20, the two or three domains a country had in a mail-world
 * run moved its order the wrong way more often than the right one.
 */
export const PRIOR_DOMAINS = 30;
export const COUNTRY_DOMAINS = 60;

/** `counts` (domains per format) smoothed towards `base`, on base's scale. */
function smoothed(base: Map<Pattern, number>, counts: Map<Pattern, number>, weight: number): Map<Pattern, number> {
  const scale = [...base.values()].reduce((a, b) => a + b, 0);
  const n = [...counts.values()].reduce((a, b) => a + b, 0);
  if (n === 0 || scale <= 0) return base;
  return new Map(
    PATTERNS.map((p) => [p, (((counts.get(p) ?? 0) + (weight * (base.get(p) ?? 0)) / scale) / (n + weight)) * scale]),
  );
}

/** The format prior at `domain` before its own evidence: built-in, then the index's counts. */
export function priorWeights(
  domain: string,
  counts: FormatCounts = NO_COUNTS,
  namesFamilyFirst = false,
): Map<Pattern, number> {
  // On a domain that names no country, the people's names say where the company is (name-culture.ts).
  const familyFirst =
    FAMILY_FIRST.has(countryOfDomain(domain) ?? "") || (namesFamilyFirst && countrylessDomain(domain));
  const builtIn = new Map(
    PATTERNS.map((p) => [
      p,
      GLOBAL_PRIOR[p] * (familyFirst && (p.startsWith("{last}") || p.startsWith("{l}")) ? 3 : 1),
    ]),
  );
  return smoothed(smoothed(builtIn, counts.all, PRIOR_DOMAINS), counts.country, COUNTRY_DOMAINS);
}

/** What is known at a domain besides its own addresses, for the order of formats. */
export interface FormatContext {
  /** What earlier checks at the domain rejected (a plain list: those formats in every spelling). */
  ruledOut?: readonly string[] | RuleOuts;
  /** The index's format counts (format-tallies.ts); none: the built-in prior alone. */
  counts?: FormatCounts;
  /** Most names at the domain are of a family-name-first culture (name-culture.ts). */
  namesFamilyFirst?: boolean;
  /** The people the domain's pages show (its team page), the asked one among them or not. */
  colleagues?: readonly PersonName[];
}

/**
 * A format under which two of the domain's people would share one address is unlikely to be the
 * domain's: three colleagues named Alba cannot all be alba@. Companies do solve such clashes by hand
 * (alba2@), so the format is lowered, not ruled out.
 */
export const CLASH_FACTOR = 0.1;

/**
 * People per clash a format may have and still be a domain's: a large company's team page shows
 * some clash under almost every short format (two Johns, two J. Smiths) and solves them by hand,
 * while a clash among a small team's few names speaks against the format.
 */
const PEOPLE_PER_CLASH = 20;

/** The formats that give two of `people` (different people) the same address, at a small team. */
export function clashingFormats(people: readonly PersonName[]): Set<Pattern> {
  const distinct = new Map(people.map((p) => [nameKey(`${p.first} ${p.middle ?? ""} ${p.last}`), p]));
  const out = new Set<Pattern>();
  for (const pattern of PATTERNS) {
    const seen = new Set<string>();
    let clashes = 0;
    // Where a shown name has more than two words, which of them make the family name is a guess
    // ("Alba Sánchez Torres"): such names only count in formats without it.
    const usesFamily = pattern.includes("{last}") || pattern.includes("{l}");
    for (const person of distinct.values()) {
      if (usesFamily && (person.middle || /[\s-]/.test(person.last.trim()))) continue;
      const local = applyPattern(pattern, person);
      if (!local) continue;
      if (seen.has(local)) clashes++;
      seen.add(local);
    }
    if (clashes > 0 && clashes * PEOPLE_PER_CLASH >= seen.size + clashes) out.add(pattern);
  }
  return out;
}

export function formatWeights(
  domain: string,
  inference: PatternInference | null,
  known: FormatContext = {},
): Map<Pattern, number> {
  const prior = priorWeights(domain, known.counts, known.namesFamilyFirst);
  const clashing = clashingFormats(known.colleagues ?? []);
  const observed = new Map(inference?.shares.map((s) => [s.pattern, s.share]) ?? []);
  const out = new Map<Pattern, number>();
  for (const p of PATTERNS) {
    let w = prior.get(p) ?? 0;
    // The domain's own (weak) evidence dominates the prior where it has any.
    const seen = observed.get(p);
    if (seen !== undefined) w = seen + w * 0.1;
    if (clashing.has(p)) w *= CLASH_FACTOR;
    out.set(p, w);
  }
  return out;
}

/** The person's candidate addresses at `domain`, most likely first (at most `limit`). */
export function candidateAddresses(
  name: PersonName,
  domain: string,
  opts: FormatContext & {
    inference?: PatternInference | null;
    limit?: number;
  } = {},
): Candidate[] {
  const formats = formatWeights(domain, opts.inference ?? null, opts);
  const names: Weighted<PersonName> = [[name, 1]];
  const nicknames = nicknamesOf(name.first);
  for (const n of nicknames) names.push([{ ...name, first: n }, 0.1 / nicknames.length]);
  const ruleOuts = asRuleOuts(opts.ruledOut);
  const byLocal = new Map<string, Candidate>();
  for (const [variant, wName] of names) {
    const open = openDims(spellingDims(variant, domain, opts.inference ?? null));
    for (const [spelling, wSpelling] of spellingsOf(variant, domain, opts.inference ?? null)) {
      for (const [pattern, wFormat] of formats) {
        const local = applyPattern(pattern, variant, spelling);
        if (!local) continue;
        const weight = wName * wSpelling * wFormat * ruleOutFactor(ruleOuts, pattern, spelling, open);
        const nickname = variant !== name ? { nickname: true } : {};
        const prior = byLocal.get(local);
        // Two ways to the same address add up; the likelier one names it.
        if (prior)
          byLocal.set(local, {
            ...(prior.weight >= weight ? prior : { local, pattern, spelling, name: variant, ...nickname }),
            weight: prior.weight + weight,
          });
        else byLocal.set(local, { local, pattern, spelling, name: variant, ...nickname, weight });
      }
    }
  }
  return [...byLocal.values()].sort((a, b) => b.weight - a.weight).slice(0, opts.limit ?? 20);
}
