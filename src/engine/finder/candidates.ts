import {
  hasParticle,
  nameKey,
  nicknamesOf,
  nordicMatters,
  type PartForm,
  type PersonName,
  prefixIsPartOfName,
  transliterationMatters,
} from "../people/names.js";
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

/**
 * A person's likely addresses at a domain whose pages show no format, most likely first, for the
 * SMTP confirmation (confirm.ts). Each candidate's weight is the product of:
 *  - its format's weight: the domain's own evidence when it has some (a weak inference), else how
 *    common the format is among the domains the index knows (format-tallies.ts), in the domain's
 *    country first, then everywhere, then the built-in prior (patterns.ts) for what the index has not
 *    counted yet, with family-name-first formats raised where companies write the family name first
 *    (Japan, China, Taiwan, Korea, Vietnam, Hungary: by the domain's country, or on a domain that
 *    names no country by most of its people's family names, name-culture.ts); formats under which
 *    two of the team page's people would share one address lowered; formats with the middle name's
 *    initial raised where the team page shows most of its people's middle names and the asked
 *    person has one; formats an earlier check at this domain rejected for someone else lowered;
 *  - its spelling's weight: the habit the domain's own addresses show, where they show one (ü → u,
 *    ø → oe, a particle dropped, a double family name's first part); else umlauts expanded (ü → ue)
 *    where German is written (DE, AT, CH), bare elsewhere; ø/å bare before digraphs; a several-word
 *    part joined, hyphenated or cut (García López → garcia first: Spanish domains mostly keep the
 *    first surname); a particle joined (vanderberg) before dropped; the given name as typed before
 *    its usual nicknames.
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
const GERMAN = new Set(["DE", "AT", "CH", "LI"]);
/**
 * A rejected format at this domain is far less likely for the next person (unless that person had no
 * mailbox). Low enough that the next person's checks go to formats not tried yet, even rare ones
 * (a rejected {first}.{last} falls below {l}{first}), rather than to the rejected common ones again:
 * at 0.08 a domain with a rare format kept every person's checks on the formats already rejected.
 */
export const RULED_OUT_FACTOR = 0.01;

/**
 * What earlier rejections at a domain left of each format's weight (format → factor): each search
 * that rejected someone's address in a format multiplies it by RULED_OUT_FACTOR, whatever the
 * spelling of that address. Weighing a rejection by how sure its spelling was (a rejected
 * "szak-wisniewski" is one of three ways to write Stanisław Żak-Wiśniewski in {f}{last}) was tried
 * twice, per format and per spelling habit: it lost on the mail world (it keeps the next people's
 * checks on the rejected common formats in other spellings instead of formats not tried yet). A
 * nickname's address says nothing of the format (the person may not go by it).
 * Stored in `smtp_domains.ruled_out`; a list of formats (how it was stored before) reads the same.
 */
export type RuleOuts = Readonly<Partial<Record<Pattern, number>>>;

export function parseRuleOuts(json: string | null | undefined): RuleOuts {
  return asRuleOuts(JSON.parse(json || "{}") as readonly string[] | RuleOuts);
}

function asRuleOuts(r: readonly string[] | RuleOuts | null | undefined): RuleOuts {
  if (!r || typeof r !== "object") return {};
  if (Array.isArray(r)) return Object.fromEntries(r.map((p) => [p, RULED_OUT_FACTOR]));
  // Only formats with a factor: anything else a row holds (another shape written by an earlier
  // version) is dropped, not carried on.
  return Object.fromEntries(
    Object.entries(r).filter(([p, f]) => (PATTERNS as readonly string[]).includes(p) && typeof f === "number"),
  );
}

/** One search's rejected addresses added to what the domain knew. */
export function withRejections(known: RuleOuts, rejected: readonly Candidate[]): RuleOuts {
  const out: Partial<Record<Pattern, number>> = { ...known };
  for (const p of new Set(rejected.filter((c) => !c.nickname).map((c) => c.pattern)))
    out[p] = (known[p] ?? 1) * RULED_OUT_FACTOR;
  return out;
}

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
  /** What earlier rejections at the domain left of each format. */
  ruledOut?: readonly string[] | RuleOuts;
  /** The index's format counts (format-tallies.ts); none: the built-in prior alone. */
  counts?: FormatCounts;
  /** Most names at the domain are of a family-name-first culture (name-culture.ts). */
  namesFamilyFirst?: boolean;
  /** The people the domain's pages show (its team page), the asked one among them or not. */
  colleagues?: readonly PersonName[];
  /** The asked person has a middle name (the query gave one, or the team page shows it). */
  askedMiddle?: boolean;
}

/**
 * How much more likely a format with the middle name's initial ({f}{m}{last}) is taken to be where
 * the team page shows a middle name for most of its people and the asked person has one: a house
 * that writes everyone's middle name (or initial) on its pages is one that uses it, and the only
 * formats that need it are the ones with it. The built-in prior makes the format one of the rarest
 * (half a percent); raised, it stands beside {f}{last}, within a first search's checks. An
 * assumption about companies, not a measurement: no survey of it was found.
 */
export const MIDDLE_SHOWN_FACTOR = 30;

/** Whether most of the domain's people (at least two of them) are shown with a middle name. */
export function showsMiddleNames(people: readonly PersonName[]): boolean {
  const distinct = new Map(people.map((p) => [nameKey(`${p.first} ${p.middle ?? ""} ${p.last}`), p]));
  const withMiddle = [...distinct.values()].filter((p) => p.middle).length;
  return withMiddle >= 2 && withMiddle * 2 > distinct.size;
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
  const left = asRuleOuts(known.ruledOut);
  const clashing = clashingFormats(known.colleagues ?? []);
  const middles = known.askedMiddle === true && showsMiddleNames(known.colleagues ?? []);
  const observed = new Map(inference?.shares.map((s) => [s.pattern, s.share]) ?? []);
  const out = new Map<Pattern, number>();
  for (const p of PATTERNS) {
    let w = prior.get(p) ?? 0;
    // The domain's own (weak) evidence dominates the prior where it has any.
    const seen = observed.get(p);
    if (seen !== undefined) w = seen + w * 0.1;
    w *= left[p] ?? 1;
    if (clashing.has(p)) w *= CLASH_FACTOR;
    if (middles && p.includes("{m}")) w *= MIDDLE_SHOWN_FACTOR;
    out.set(p, w);
  }
  return out;
}

type Weighted<T> = [T, number][];

function formsOf(part: string, kind: "given" | "family"): Weighted<PartForm | null> {
  const words = part
    .trim()
    .split(/[\s-]+/)
    .filter(Boolean);
  if (words.length < 2) return [[null, 1]];
  if (kind === "given")
    return [
      ["hyphen", 0.45],
      ["joined", 0.35],
      ["first", 0.2],
    ];
  if (hasParticle(part) && !prefixIsPartOfName(part))
    return [
      ["joined", 0.7],
      ["last", 0.3],
    ];
  if (part.includes("-"))
    return [
      ["hyphen", 0.45],
      ["joined", 0.35],
      ["first", 0.2],
    ];
  return [
    ["first", 0.5],
    ["joined", 0.25],
    ["hyphen", 0.2],
    ["last", 0.05],
  ];
}

/**
 * A habit's weights once the domain's own addresses show it: the shown form leads and the others
 * stay as unlikely fallbacks (a domain is not always consistent); unchanged when nothing was shown.
 */
function learnt<T>(shown: T | null | undefined, prior: Weighted<T>): Weighted<T> {
  if (shown == null || !prior.some(([v]) => v === shown)) return prior;
  const others = prior.length - 1;
  return prior.map(([v]) => [v, v === shown ? LEARNT_WEIGHT : (1 - LEARNT_WEIGHT) / others]);
}
const LEARNT_WEIGHT = 0.9;

function spellingsOf(name: PersonName, domain: string, habits: PatternInference | null): Weighted<Spelling> {
  const german = GERMAN.has(countryOfDomain(domain) ?? "");
  const styles: Weighted<Spelling["style"]> = transliterationMatters(name)
    ? german
      ? [
          ["expanded", 0.8],
          ["plain", 0.2],
        ]
      : [
          ["plain", 0.7],
          ["expanded", 0.3],
        ]
    : [["plain", 1]];
  const nordics: Weighted<"plain" | "expanded"> = nordicMatters(name)
    ? [
        ["plain", 0.6],
        ["expanded", 0.4],
      ]
    : [["plain", 1]];
  const particle = hasParticle(name.last) && !prefixIsPartOfName(name.last);
  const out: Weighted<Spelling> = [];
  for (const [style, ws] of learnt(habits?.style, styles))
    for (const [nordic, wn] of learnt(habits?.nordic, nordics))
      for (const [firstForm, wf] of learnt(habits?.firstForm, formsOf(name.first, "given")))
        for (const [lastForm, wl] of learnt(
          particle ? habits?.particleForm : habits?.lastForm,
          formsOf(name.last, "family"),
        ))
          out.push([
            {
              style,
              nordic,
              firstForm,
              lastForm: particle ? null : lastForm,
              particleForm: particle ? lastForm : null,
            },
            ws * wn * wf * wl,
          ]);
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
  const formats = formatWeights(domain, opts.inference ?? null, { askedMiddle: !!name.middle, ...opts });
  const names: Weighted<PersonName> = [[name, 1]];
  const nicknames = nicknamesOf(name.first);
  for (const n of nicknames) names.push([{ ...name, first: n }, 0.1 / nicknames.length]);
  const byLocal = new Map<string, Candidate>();
  for (const [variant, wName] of names) {
    for (const [spelling, wSpelling] of spellingsOf(variant, domain, opts.inference ?? null)) {
      for (const [pattern, wFormat] of formats) {
        const local = applyPattern(pattern, variant, spelling);
        if (!local) continue;
        const weight = wName * wSpelling * wFormat;
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
