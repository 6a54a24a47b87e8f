import type { PersonName } from "../people/names.js";
import { givenSpelledOut, type Reading } from "../people/readings.js";
import {
  type FormatObservation,
  GLOBAL_PRIOR,
  matchPatterns,
  type Pattern,
  type PatternInference,
  type PatternMatch,
  tallyFormats,
} from "./patterns.js";

/** A personal address of the domain and the readings of its owner's name the pages allow. */
export interface AddressEvidence {
  localPart: string;
  readings: readonly Reading[];
}

export interface JointReading {
  /** The reading chosen for each address, in input order; null when no reading fits any format. */
  names: (PersonName | null)[];
  inference: PatternInference;
}

/** A convention the site states in words ("firstname.lastname@…") counts as much as one address. */
const STATED_WEIGHT = 1;
const EPSILON = 1e-9;

interface Candidate {
  reading: Reading;
  match: PatternMatch;
}

/**
 * Reads the names of a domain's people and its address format together. A domain uses one
 * convention, so the reading of each displayed name is the one under which one format explains
 * the most of the domain's addresses: "Clara Dubois" with dubois.clara@ is Clara of the Dubois
 * family on a domain whose other people are {last}.{first}, and "Tanaka Hiroshi" with
 * hiroshi.tanaka@ is read family name first on a domain whose other people are {first}.{last}.
 *
 * Each format scores, over the addresses, the weight of the best reading that renders the address
 * in it (a family-name-first reading without a cue weighs less: see readings.ts); stated
 * conventions add to the first round. The best format takes every address it explains, each with
 * its best reading for that format; the rest go to the next round (domains with a second,
 * older format). When two formats tie in the first round, every address that supports both splits
 * its vote between them, so the answer says it cannot tell instead of guessing with confidence.
 */
export function readJointly(addresses: readonly AddressEvidence[], stated: readonly Pattern[] = []): JointReading {
  const table: Candidate[][] = addresses.map((a) =>
    a.readings
      // A given name shown as an initial, spelled out by the address ("L. Sharma" at lakshmi.sharma@).
      .flatMap((r) => [r, ...[givenSpelledOut(a.localPart, r)].filter((x): x is Reading => x !== null)])
      .map((reading) => ({ reading, match: matchPatterns(a.localPart, reading.name) }))
      .filter((c) => c.match.patterns.length > 0),
  );
  const names: (PersonName | null)[] = addresses.map(() => null);
  const observations: FormatObservation[] = stated.map((p) => ({
    patterns: [p],
    style: null,
    nordic: null,
    lastForm: null,
    particleForm: null,
    firstForm: null,
  }));
  // The addresses still to explain, with their candidate readings (an address without any is left out).
  let remaining = table.map((candidates, i) => ({ i, candidates })).filter((a) => a.candidates.length > 0);

  for (let round = 0; remaining.length > 0; round++) {
    const scores = new Map<Pattern, number>();
    for (const { candidates } of remaining) {
      for (const [pattern, weight] of bestWeights(candidates)) scores.set(pattern, (scores.get(pattern) ?? 0) + weight);
    }
    if (round === 0) for (const p of stated) scores.set(p, (scores.get(p) ?? 0) + STATED_WEIGHT);
    const ranked = [...scores].sort((a, b) => b[1] - a[1] || GLOBAL_PRIOR[b[0]] - GLOBAL_PRIOR[a[0]]);
    const first = ranked[0];
    if (!first) throw new Error("addresses with candidate readings scored no pattern");
    const [top, topScore] = first;
    const rivals = round === 0 ? ranked.filter(([, s]) => s >= topScore - EPSILON).map(([p]) => p) : [top];

    const explained = new Set(remaining.filter((a) => a.candidates.some((c) => c.match.patterns.includes(top))));
    for (const { i, candidates } of explained) {
      const fitting = candidates.filter((c) => c.match.patterns.includes(top));
      const best = fitting.reduce((a, b) => (b.reading.weight > a.reading.weight + EPSILON ? b : a));
      names[i] = best.reading.name;
      // The formats this address supports as strongly as the chosen one: itself, or a tied rival.
      const tied = rivals.filter(
        (p) =>
          p !== top &&
          candidates.some((c) => c.reading.weight >= best.reading.weight - EPSILON && c.match.patterns.includes(p)),
      );
      observations.push({ ...best.match, patterns: [...new Set([...best.match.patterns, ...tied])] });
    }
    remaining = remaining.filter((a) => !explained.has(a));
  }
  return { names, inference: tallyFormats(observations) };
}

/** Per format, the weight of the strongest reading of one address that renders it. */
function bestWeights(candidates: readonly Candidate[]): Map<Pattern, number> {
  const out = new Map<Pattern, number>();
  for (const c of candidates) for (const p of c.match.patterns) out.set(p, Math.max(out.get(p) ?? 0, c.reading.weight));
  return out;
}
