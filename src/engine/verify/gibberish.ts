import model from "../data/letter-bigrams.json";

/**
 * Gibberish detection for email local parts ("xkqwzjv@", "asdfgh@", "a8f7d6s5k2@").
 *
 * The main signal is a character-bigram model trained on ~32,000 first and last names from 60+
 * locales plus English words and role prefixes (scripts/build-letter-model.mjs). A letter run is
 * scored by its mean surprisal in bits per transition: real names sit around 3-5 bits, random
 * letters around 6, keyboard mashes 7-9. Runs the model cannot judge (keyboard rows, one repeated
 * letter, letters and digits alternating) have explicit rules.
 */

const costs = (model as { costs: number[][] }).costs;

/** The model's cost of going from letter `prev` to letter `next` (0 = boundary, 1-26 = a-z). */
function cost(prev: number, next: number): number {
  const c = costs[prev]?.[next];
  if (c === undefined) throw new RangeError(`no letter-model cost from ${prev} to ${next}: the run is not a-z`);
  return c;
}

/** Mean surprisal of a lowercase a-z run, boundaries included, in bits per transition. */
export function letterSurprisal(run: string): number {
  let prev = 0;
  let total = 0;
  for (const ch of run) {
    const i = ch.charCodeAt(0) - 96;
    total += cost(prev, i);
    prev = i;
  }
  total += cost(prev, 0);
  return total / (run.length + 1) / 10;
}

// Digit rows are left out: "1234" is common in real addresses.
const KEYBOARD_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];
// Five keys, not four: "Doherty" and "Ewert" contain four-key qwerty runs.
const KEYBOARD_RUN = 5;

function hasKeyboardRun(s: string): boolean {
  for (const row of KEYBOARD_ROWS) {
    for (const r of [row, [...row].reverse().join("")]) {
      for (let i = 0; i + KEYBOARD_RUN <= r.length; i++) if (s.includes(r.slice(i, i + KEYBOARD_RUN))) return true;
    }
  }
  return false;
}

export interface GibberishVerdict {
  gibberish: boolean;
  /** Which rule decided, for explanations and tests. */
  reason: "surprisal" | "keyboard" | "repeated" | "alternating" | "hex" | null;
  /** Highest letter-run surprisal seen, in bits per transition. */
  surprisal: number;
}

// Thresholds calibrated on the training names (p99 under 5.3) and uniform random letters (median 6.2).
const LONG_RUN_THRESHOLD = 5.6;
const SHORT_RUN_THRESHOLD = 6.0;

export function gibberishVerdict(localPart: string): GibberishVerdict {
  const s = localPart.toLowerCase().replace(/\+.*$/s, "");
  const alnum = s.replace(/[^a-z0-9]/g, "");
  let surprisal = 0;
  const result = (reason: GibberishVerdict["reason"]): GibberishVerdict => ({
    gibberish: reason !== null,
    reason,
    surprisal,
  });

  for (const run of s.split(/[^a-z]+/)) {
    if (run.length < 4) continue;
    const bits = letterSurprisal(run);
    surprisal = Math.max(surprisal, bits);
  }
  surprisal = Math.round(surprisal * 100) / 100;

  if (/([a-z0-9])\1{3,}/.test(alnum)) return result("repeated");
  if (hasKeyboardRun(alnum)) return result("keyboard");
  // Hash-like identifiers: long hex strings mixing digits and letters.
  if (alnum.length >= 16 && /^[0-9a-f]+$/.test(alnum) && /\d/.test(alnum) && /[a-f]/.test(alnum)) return result("hex");
  // "a8f7d6s5": letters and digits switching many times reads as machine-made, "john1985" does not.
  const switches = (alnum.match(/[a-z](?=\d)|\d(?=[a-z])/g) ?? []).length;
  if (alnum.length >= 6 && switches >= 4) return result("alternating");
  for (const run of s.split(/[^a-z]+/)) {
    if (run.length < 4) continue;
    const threshold = run.length >= 6 ? LONG_RUN_THRESHOLD : SHORT_RUN_THRESHOLD;
    if (letterSurprisal(run) >= threshold) return result("surprisal");
  }
  return result(null);
}

export function isGibberish(localPart: string): boolean {
  return gibberishVerdict(localPart).gibberish;
}
