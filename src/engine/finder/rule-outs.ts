import type { PersonName } from "../people/names.js";
import { applyPattern, type Pattern, type PatternInference, type Spelling } from "./patterns.js";
import { SPELLING_DIMS, type SpellingDim, type SpellingDims, spellingDims } from "./spellings.js";

/**
 * What the SMTP checks at a domain ruled out: which formats, in which spellings. A domain writes
 * everyone in one format with one habit per spelling choice (umlauts, a double family name's form,
 * a particle...), so a rejected address rules out the format together with the habits that wrote
 * it, and no more:
 *  - "jane.cooper" rejected: {first}.{last} is out for everyone (RULED_OUT_FACTOR);
 *  - "szak-wisniewski" rejected for Stanisław Żak-Wiśniewski: {f}{last} is out only for domains that
 *    hyphenate double family names; for Jędrzej Sikora, whose name is written one way, {f}{last}
 *    keeps the weight of the other habits (0.55); for Ana García López the hyphenated
 *    "agarcia-lopez" is out and "agarcia" not touched;
 *  - several spellings rejected in one search add up (all of them: the format is out).
 * Habits are taken as independent of each other, each weighted as the rejected person's name weighs
 * it (spellings.ts). A rejection of a nickname's address says nothing of the format (the person may
 * not go by it). Each search's rejections are one entry; entries multiply.
 */

/**
 * A rejected format is far less likely for the next person (unless that person had no mailbox). Low
 * enough that the next person's checks go to formats not tried yet, even rare ones (a rejected
 * {first}.{last} falls below {l}{first}), rather than to the rejected common ones again: at 0.08 a
 * domain with a rare format kept every person's checks on the formats already rejected.
 */
export const RULED_OUT_FACTOR = 0.01;

/** One rejected address: its format, and per spelling choice that mattered, the habits that wrote it. */
interface Rejection {
  p: Pattern;
  /** Dimension → [habits that write the rejected address, their weight for its person's name]. */
  h: Partial<Record<SpellingDim, [(string | null)[], number]>>;
}

/** The rejections of each search at a domain, oldest first (`smtp_domains.ruled_out`). */
export interface RuleOuts {
  searches: Rejection[][];
}

/** How many searches' rejections a domain keeps (older ones matter little once formats are known). */
const KEPT_SEARCHES = 30;

export const NO_RULE_OUTS: RuleOuts = { searches: [] };

/** Reads `smtp_domains.ruled_out`; a list of formats (stored before) rules each out in every spelling. */
export function parseRuleOuts(json: string | null | undefined): RuleOuts {
  const raw = JSON.parse(json || "[]") as unknown;
  if (Array.isArray(raw)) return asRuleOuts(raw as string[]);
  const searches = (raw as Partial<RuleOuts> | null)?.searches;
  return Array.isArray(searches) ? { searches } : NO_RULE_OUTS;
}

/** Formats given as a plain list are out in every spelling. */
export function asRuleOuts(r: readonly string[] | RuleOuts | undefined): RuleOuts {
  if (!r) return NO_RULE_OUTS;
  if (!Array.isArray(r)) return r as RuleOuts;
  return { searches: (r as readonly string[]).map((p) => [{ p: p as Pattern, h: {} }]) };
}

/** A rejected address as `withRejections` needs it (a finder candidate). */
export interface Rejected {
  local: string;
  pattern: Pattern;
  spelling: Spelling;
  name: PersonName;
  nickname?: boolean;
}

/** One search's rejected addresses added to what the domain knew. */
export function withRejections(
  known: RuleOuts,
  rejected: readonly Rejected[],
  domain: string,
  inference: PatternInference | null,
): RuleOuts {
  const search = rejected.filter((c) => !c.nickname).map((c) => rejectionOf(c, domain, inference));
  if (search.length === 0) return known;
  return { searches: [...known.searches, search].slice(-KEPT_SEARCHES) };
}

/** The spelling choices that wrote `c.local` (those where another habit writes another address). */
function rejectionOf(c: Rejected, domain: string, inference: PatternInference | null): Rejection {
  const dims = spellingDims(c.name, domain, inference);
  const h: Rejection["h"] = {};
  for (const dim of SPELLING_DIMS) {
    const options = dims[dim] as [string | null, number][];
    if (options.length < 2) continue;
    const writing = options.filter(([v]) => applyPattern(c.pattern, c.name, { ...c.spelling, [dim]: v }) === c.local);
    if (writing.length === options.length) continue;
    h[dim] = [writing.map(([v]) => v), writing.reduce((a, [, w]) => a + w, 0)];
  }
  return { p: c.pattern, h };
}

/**
 * What the rejections leave of a candidate's weight: the format `pattern` written in `spelling` for
 * a person whose name leaves open the choices `open` (dimensions with more than one way).
 */
export function ruleOutFactor(
  ruleOuts: RuleOuts,
  pattern: Pattern,
  spelling: Spelling,
  open: ReadonlySet<SpellingDim>,
): number {
  let factor = 1;
  for (const search of ruleOuts.searches) {
    let share = 0;
    for (const r of search) {
      if (r.p !== pattern) continue;
      let covered = 1;
      for (const [dim, [values, weight]] of Object.entries(r.h) as [SpellingDim, [(string | null)[], number]][]) {
        // A choice this name makes too: the rejection covers it or not; one it does not make: the
        // rejection covers the habits that wrote the rejected address, weighed as its name weighed them.
        covered *= open.has(dim) ? (values.includes(spelling[dim] ?? null) ? 1 : 0) : weight;
      }
      share += covered;
    }
    if (share > 0) factor *= RULED_OUT_FACTOR + (1 - RULED_OUT_FACTOR) * Math.max(0, 1 - share);
  }
  return factor;
}

/** The dimensions a name leaves open (more than one way to write it). */
export function openDims(dims: SpellingDims): Set<SpellingDim> {
  return new Set(SPELLING_DIMS.filter((d) => dims[d].length > 1));
}
