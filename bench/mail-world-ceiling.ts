// npm run bench -- mail-world-ceiling [seeds...] [--domains 24] [--random N]
// What share of FIRST answers any ranking can reach on the mail world (test/fixtures/mail-world),
// given what a first answer may spend: at most five checks, one fewer at a self-hosted server's first
// search (the published-address test), and no usable check at all behind whole-client or postgrey
// greylisting (the answer is the ranking's top guess). Offline, no workerd: it replays each domain's
// people in order, as the bench asks them, under three rankings:
//   - "engine": the finder's own candidate order (candidates.ts) with what earlier people at the
//     domain left (rejections as rule-outs, a confirmed address as the domain's format), without the
//     index's cross-domain counts (those depend on the order domains complete in);
//   - "world": the best order anything can have without knowing the domain: every (format, spelling
//     rules) pair weighed by the world's own generating shares and kept only while consistent with
//     what the domain's checks said. It reads the generator's truth, so it is a measuring stick only,
//     never a model for the engine;
//   - "format oracle": knows the domain's format and rules: right on every first answer.
// CEILING_LEAD_BEFORE=1 ranks the web-evidence lookups as the engine did before they took the
// search's own rejections as rule-outs (a colleague's likeliest addresses in the formats just rejected).
// Variants of the engine's rule-outs (environment): CEILING_NO_LIFT=1 keeps a format ruled out after a
// confirmed address in it (the engine before it lifted them); CEILING_SOLE=1 rules a format out only
// where the rejected address was the person's sole spelling in it (measured and dropped).
// A miss of the engine that "world" gets is a ranking miss; a miss of both is structural for any
// ranking (the format lies beyond the checks a first answer has, or only a guess is possible).
import { candidateAddresses } from "../src/engine/finder/candidates.js";
import * as culture from "../src/engine/finder/name-culture.js";
import { inferPatterns } from "../src/engine/finder/patterns.js";
import { nameSplits, type PersonName, splitFullName } from "../src/engine/people/names.js";
import { CULTURE_DATA } from "../test/fixtures/generator/names.js";
import {
  ALL_RULES,
  type Format,
  localPart,
  REALISTIC_WEIGHTS,
  RULE_OPTIONS,
  type SpellingRules,
} from "../test/fixtures/generator/spelling.js";
import { shownName } from "../test/fixtures/mail-world/site.js";
import {
  MAIL_WORLD_GRAVATAR_SHARE,
  mailWorld,
  type WorldDomain,
  type WorldPerson,
} from "../test/fixtures/mail-world/world.js";

// Optional: code from before these readings existed runs the sim too (for before/after figures).
const readShownName = (
  culture as { readShownName?: typeof import("../src/engine/finder/name-culture.js").readShownName }
).readShownName;

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const domainsPer = opt("--domains", 24);
const randomSeeds = opt("--random", 0);
// Web evidence (Gravatar, WKD) after a first answer's checks found nothing: the share of people with
// a Gravatar profile (the world's draw, monotone in it), and how many candidates are looked up for the
// asked person and for each colleague on the team page (the engine's bounds, web-evidence-search.ts).
const gravatarShare = opt("--gravatar", MAIL_WORLD_GRAVATAR_SHARE);
const PERSON_LOOKUPS = opt("--kp", 8);
const COLLEAGUE_LOOKUPS = opt("--kc", 3);
const seeds = args.filter((a, i) => /^\d+$/.test(a) && !args[i - 1]?.startsWith("--")).map(Number);
for (let i = 0; i < randomSeeds; i++) seeds.push(1000 + Math.floor(Math.random() * 2_000_000_000));

// The world's rules draw (world.ts drawRules): the usual option with probability p, else any option.
const USUAL_P: Record<keyof SpellingRules, number> = {
  umlaut: 0.75,
  nordic: 0.6,
  hyphenGiven: 0.6,
  compound: 0.6,
  hyphenSurname: 0.6,
  particle: 0.7,
};
function rulesPrior(r: SpellingRules, culture: string): number {
  const usual: SpellingRules = {
    umlaut: culture === "de" ? "expand" : "strip",
    nordic: "strip",
    hyphenGiven: "keep",
    compound: "first",
    hyphenSurname: "keep",
    particle: "join",
  };
  let w = 1;
  for (const k of Object.keys(USUAL_P) as (keyof SpellingRules)[]) {
    const n = RULE_OPTIONS[k].length;
    w *= (r[k] === usual[k] ? USUAL_P[k] : 0) + (1 - USUAL_P[k]) / n;
  }
  return w;
}
function formatPrior(f: Format, culture: string): number {
  const familyFirst = CULTURE_DATA[culture as keyof typeof CULTURE_DATA].familyFirst;
  return REALISTIC_WEIGHTS[f] * (familyFirst && f.startsWith("{last}") ? 4 : 1);
}

type Obs = { person: WorldPerson; local: string; accepted: boolean };

/** The world ranking: addresses of `p` by the mass of (format, rules) pairs consistent with `obs`. */
function worldRanking(d: WorldDomain, p: WorldPerson, obs: readonly Obs[]): string[] {
  const mass = new Map<string, number>();
  for (const f of Object.keys(REALISTIC_WEIGHTS) as Format[]) {
    if ((f === "{f}{m}{last}") !== (d.format === "{f}{m}{last}") && p.middle) continue;
    const wf = formatPrior(f, d.culture);
    for (const r of ALL_RULES) {
      const ok = obs.every((o) => (localPart(o.person.person, f, r) === o.local) === o.accepted);
      if (!ok) continue;
      const local = localPart(p.person, f, r);
      if (!local) continue;
      mass.set(local, (mass.get(local) ?? 0) + wf * rulesPrior(r, d.culture));
    }
  }
  return [...mass.entries()].sort((a, b) => b[1] - a[1]).map(([l]) => l);
}

/** The name as the finder reads it: typed as first and last name, or as one full name with a middle name. */
function typed(p: WorldPerson, d?: WorldDomain): PersonName {
  if (!p.middle || !d) return { first: p.first, last: p.last, ...(p.middle ? { middle: p.middle } : {}) };
  const full = shownName(p);
  const readings = nameSplits(full).filter((r) => !r.reversed);
  const usual = splitFullName(full)!;
  // As email-finder.ts reads it with no address at the domain yet.
  return readShownName && culture.writesTwoFamilyNames(d.domain)
    ? culture.twoFamilyNameReading(usual, readings)
    : usual;
}
/** The team page's names as the finder reads them. */
const shownAs = (d: WorldDomain) =>
  d.people.map((p) => (readShownName ? readShownName(shownName(p), d.domain) : splitFullName(shownName(p)))!);

function engineRanking(
  d: WorldDomain,
  p: WorldPerson,
  obs: readonly Obs[],
  ruledOut: Record<string, number>,
): string[] {
  const confirmed = obs.filter((o) => o.accepted);
  const inference = confirmed.length
    ? inferPatterns(confirmed.map((o) => ({ localPart: o.local, name: typed(o.person) })))
    : null;
  const colleagues = shownAs(d);
  const searched = candidateAddresses(typed(p, d), d.domain, { inference, ruledOut, colleagues, limit: 40 }).map(
    (c) => c.local,
  );
  if (!inference) return searched;
  // With a confirmed address the finder proposes from the domain's format first (email-finder.ts),
  // and searches (with the rule-outs) only when that proposal is rejected.
  const proposed = candidateAddresses(typed(p, d), d.domain, { inference, limit: 1 })[0]?.local;
  return proposed ? [proposed, ...searched.filter((l) => l !== proposed)] : searched;
}

/** `ruledOut` with the formats of the person's rejected candidates (`tried`) ruled out once more. */
function withTriedRejected(
  ruledOut: Record<string, number>,
  name: PersonName,
  domain: string,
  tried: readonly string[],
): Record<string, number> {
  const own = candidateAddresses(name, domain, { limit: 40 });
  const out = { ...ruledOut };
  const patterns = new Set(tried.flatMap((l) => own.filter((c) => c.local === l && !c.nickname).map((c) => c.pattern)));
  for (const pat of patterns) out[pat] = (out[pat] ?? 1) * 0.01;
  return out;
}

type Kind = "engine" | "world" | "evidence";
interface Tally {
  people: number;
  right: Record<Kind, number>;
  priorOnly: number;
  causes: Record<string, number>;
}

function replay(d: WorldDomain, kind: Kind, tally: Tally, both: Map<string, Record<Kind, boolean>>) {
  const obs: Obs[] = [];
  const ruledOut: Record<string, number> = {};
  const priorOnly = d.behaviour === "greylisting" && d.greylistStyle !== "after_recipient_check";
  let searched = false;
  for (const p of d.people) {
    const ranking = kind === "world" ? worldRanking(d, p, obs) : engineRanking(d, p, obs, ruledOut);
    // Checks this first answer may spend on candidates: none usable behind prior-only greylisting;
    // a self-hosted server's first search spends one on its published address after a rejection.
    const budget = priorOnly
      ? 1
      : d.provider === "other" && !searched && !process.env.CEILING_NO_PUBLISHED_TEST
        ? 4
        : 5;
    searched = true;
    const tried = ranking.slice(0, budget);
    let hit = tried.includes(p.local);
    // The engine with web evidence, when the checks gave no answer: the person's likeliest candidates,
    // then each colleague's, looked up; a colleague's address found gives the domain's format.
    if (kind === "evidence" && !hit) {
      const own = (q: WorldPerson) => q.gravatar || q.wkdKey;
      // The lookups ranked with this search's rejections as rule-outs too, the person's without the
      // rejected addresses (confirm.ts), unless replaying code from before (CEILING_LEAD_BEFORE=1).
      const before = !!process.env.CEILING_LEAD_BEFORE;
      const leadRuledOut = before
        ? ruledOut
        : withTriedRejected(ruledOut, typed(p, d), d.domain, priorOnly ? [] : tried);
      const ownRanking = before
        ? ranking
        : engineRanking(d, p, obs, leadRuledOut).filter((l) => priorOnly || !tried.includes(l));
      if (own(p) && ownRanking.slice(0, PERSON_LOOKUPS).includes(p.local)) {
        hit = true;
        obs.push({ person: p, local: p.local, accepted: true });
      } else {
        const found = d.people.find(
          (q) =>
            q !== p && own(q) && engineRanking(d, q, obs, leadRuledOut).slice(0, COLLEAGUE_LOOKUPS).includes(q.local),
        );
        if (found) {
          const inference = inferPatterns([{ localPart: found.local, name: typed(found) }]);
          hit = candidateAddresses(typed(p, d), d.domain, { inference, limit: 1 })[0]?.local === p.local;
          if (!obs.some((o) => o.person === found && o.accepted))
            obs.push({ person: found, local: found.local, accepted: true });
        }
      }
      if (hit) evidenceHits++;
    }
    if (process.env.CEILING_DETAIL && !priorOnly)
      console.log(
        `detail ${kind} ${d.domain} ${d.format} ${d.culture} ${d.provider} ${d.behaviour}/${d.greylistStyle} order ${d.people.indexOf(p) + 1} ${p.first}|${p.middle ?? ""}|${p.last} -> ${p.local} rank ${ranking.indexOf(p.local) + 1} hit ${hit}`,
      );
    both.get(`${d.domain}|${p.local}`)![kind] = hit;
    if (hit) tally.right[kind]++;
    // First answers by the person's place at the domain (what earlier people's checks taught).
    if (!priorOnly && kind !== "evidence") {
      const place = `${kind} ${d.people.indexOf(p) === 0 ? "first person" : "later people"}`;
      const [n, r] = byPlace.get(place) ?? [0, 0];
      byPlace.set(place, [n + 1, r + (hit ? 1 : 0)]);
    }
    if (priorOnly) continue;
    // What the checks said, for the next people at the domain.
    const rejectedPatterns = new Set<string>();
    const own = candidateAddresses(typed(p, d), d.domain, { limit: 40 });
    let confirmedPattern: string | null = null;
    for (const local of tried) {
      const accepted = local === p.local;
      obs.push({ person: p, local, accepted });
      if (accepted) {
        confirmedPattern = own.find((x) => x.local === local)?.pattern ?? null;
        break;
      }
      if (kind !== "world") {
        const c = own.find((x) => x.local === local);
        const sole =
          !process.env.CEILING_SOLE || own.filter((x) => x.pattern === c?.pattern && !x.nickname).length === 1;
        if (c && !c.nickname && sole) rejectedPatterns.add(c.pattern);
      }
    }
    for (const pat of rejectedPatterns) ruledOut[pat] = (ruledOut[pat] ?? 1) * 0.01;
    // A confirmed address lifts its format's rule-out (confirm.ts), unless replaying code from before.
    if (confirmedPattern && !process.env.CEILING_NO_LIFT) delete ruledOut[confirmedPattern];
  }
}

/** Where checks can answer: people asked, right first answers, per ranking and place at the domain. */
const byPlace = new Map<string, [number, number]>();
let evidenceHits = 0;
const pooled: Tally = { people: 0, right: { engine: 0, world: 0, evidence: 0 }, priorOnly: 0, causes: {} };
for (const seed of seeds) {
  const t: Tally = { people: 0, right: { engine: 0, world: 0, evidence: 0 }, priorOnly: 0, causes: {} };
  for (const d of mailWorld(seed, domainsPer, gravatarShare)) {
    if (d.behaviour !== "normal" && d.behaviour !== "greylisting") continue;
    const both = new Map(
      d.people.map((p) => [`${d.domain}|${p.local}`, { engine: false, world: false, evidence: false }]),
    );
    replay(d, "engine", t, both);
    replay(d, "world", t, both);
    replay(d, "evidence", t, both);
    const priorOnly = d.behaviour === "greylisting" && d.greylistStyle !== "after_recipient_check";
    t.people += d.people.length;
    if (priorOnly) t.priorOnly += d.people.length;
    for (const r of both.values()) {
      const where = priorOnly ? "prior-only greylisting" : "with checks";
      const key =
        r.engine && r.world
          ? null
          : `${where}: ${r.engine ? "engine only" : r.world ? "ranking miss (world gets it)" : "structural (neither)"}`;
      if (key) t.causes[key] = (t.causes[key] ?? 0) + 1;
    }
  }
  const pc = (n: number) => `${((100 * n) / t.people).toFixed(1)}%`;
  console.log(
    `seed ${seed}: ${t.people} people; engine ${pc(t.right.engine)}, engine with web evidence ${pc(t.right.evidence)}, world ${pc(t.right.world)}, prior-only ${pc(t.priorOnly)}; ${JSON.stringify(t.causes)}`,
  );
  pooled.people += t.people;
  pooled.right.engine += t.right.engine;
  pooled.right.world += t.right.world;
  pooled.right.evidence += t.right.evidence;
  pooled.priorOnly += t.priorOnly;
  for (const [k, v] of Object.entries(t.causes)) pooled.causes[k] = (pooled.causes[k] ?? 0) + v;
}
const pc = (n: number) => `${((100 * n) / pooled.people).toFixed(1)}%`;
console.log(
  `pooled over ${seeds.length} seeds (Gravatar share ${gravatarShare}, lookups ${PERSON_LOOKUPS} + ${COLLEAGUE_LOOKUPS} per colleague): ${pooled.people} people; engine ${pc(pooled.right.engine)}, engine with web evidence ${pc(pooled.right.evidence)} (${evidenceHits} answers from evidence), world ${pc(pooled.right.world)}, format oracle 100%, prior-only ${pc(pooled.priorOnly)}`,
);
for (const [k, v] of Object.entries(pooled.causes).sort()) console.log(`  ${k}: ${v} (${pc(v)})`);
for (const [place, [n, r]] of [...byPlace.entries()].sort())
  console.log(`  where checks answer, ${place}: ${((100 * r) / n).toFixed(1)}% (${r}/${n})`);
