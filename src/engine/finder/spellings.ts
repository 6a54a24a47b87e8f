import {
  hasParticle,
  nordicMatters,
  type PartForm,
  type PersonName,
  prefixIsPartOfName,
  transliterationMatters,
} from "../people/names.js";
import { countryOfDomain } from "../web/extract/company.js";
import type { PatternInference, Spelling } from "./patterns.js";

/**
 * The ways to write a person's name in an address, each with its weight (candidates.ts): umlauts
 * expanded (ü → ue) where German is written (DE, AT, CH), bare elsewhere; ø/å bare before digraphs;
 * a several-word part joined, hyphenated or cut (García López → garcia first: Spanish domains mostly
 * keep the first surname); a particle joined (vanderberg) before dropped; unless the domain's own
 * addresses show its habit. Each choice is a dimension of its own (SpellingDims): a domain's habit
 * is one value per dimension, whoever the person.
 */

export type Weighted<T> = [T, number][];

const GERMAN = new Set(["DE", "AT", "CH", "LI"]);

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

/** The spelling choices a name leaves open: one weighted list per dimension of `Spelling`. */
export interface SpellingDims {
  style: Weighted<Spelling["style"]>;
  nordic: Weighted<"plain" | "expanded">;
  firstForm: Weighted<PartForm | null>;
  lastForm: Weighted<PartForm | null>;
  particleForm: Weighted<PartForm | null>;
}
export type SpellingDim = keyof SpellingDims;
export const SPELLING_DIMS: readonly SpellingDim[] = ["style", "nordic", "firstForm", "lastForm", "particleForm"];

export function spellingDims(name: PersonName, domain: string, habits: PatternInference | null): SpellingDims {
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
  const family = formsOf(name.last, "family");
  const none: Weighted<PartForm | null> = [[null, 1]];
  return {
    style: learnt(habits?.style, styles),
    nordic: learnt(habits?.nordic, nordics),
    firstForm: learnt(habits?.firstForm, formsOf(name.first, "given")),
    lastForm: particle ? none : learnt(habits?.lastForm, family),
    particleForm: particle ? learnt(habits?.particleForm, family) : none,
  };
}

/** Every way to write the name (one value per dimension), with its weight. */
export function spellingsOf(name: PersonName, domain: string, habits: PatternInference | null): Weighted<Spelling> {
  const d = spellingDims(name, domain, habits);
  const out: Weighted<Spelling> = [];
  for (const [style, ws] of d.style)
    for (const [nordic, wn] of d.nordic)
      for (const [firstForm, wf] of d.firstForm)
        for (const [lastForm, wl] of d.lastForm)
          for (const [particleForm, wp] of d.particleForm)
            out.push([{ style, nordic, firstForm, lastForm, particleForm }, ws * wn * wf * wl * wp]);
  return out;
}
