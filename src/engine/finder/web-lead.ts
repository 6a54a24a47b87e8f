import type { Env } from "../../env.js";
import { nameKey, type PersonName } from "../people/names.js";
import { webEvidence } from "../verify/web-evidence.js";
import type { Candidate } from "./candidates.js";
import { inferPatterns, type PatternInference } from "./patterns.js";

/**
 * When an SMTP search ends without an answer (a greylisting server, a server refusing the prober,
 * the answer's checks used up), evidence the Worker gathers itself over HTTPS can still name the
 * address: a Gravatar profile or a Web Key Directory key for an exact address says it exists
 * (web-evidence.ts). Looked up, all at once and cached per address:
 *  - the asked person's likeliest PERSON_LOOKUPS candidates: one with a profile is their address;
 *  - the likeliest COLLEAGUE_LOOKUPS candidates of up to MAX_COLLEAGUES people the team page shows:
 *    one with a profile is that colleague's address and shows the domain's format (real finders
 *    learn a domain's format from any colleague's confirmed address), in which the person's address
 *    is then written.
 * The person's own evidence comes first, then the colleagues' in the page's order. Absence of both
 * proves nothing, and an address a check of this search rejected is never the lead. At most
 * PERSON_LOOKUPS + MAX_COLLEAGUES × COLLEAGUE_LOOKUPS addresses per search (20): a Gravatar request
 * each, a WKD request each only where the domain publishes a Web Key Directory.
 */

export const PERSON_LOOKUPS = 8;
export const COLLEAGUE_LOOKUPS = 3;
export const MAX_COLLEAGUES = 4;

export interface WebLead {
  /** The person's address the evidence points at. */
  candidate: Candidate;
  /** The address the evidence is for: the person's own candidate, or a colleague's. */
  evidenceFor: Candidate;
  source: "gravatar" | "wkd";
}

/** A person's candidates at the domain, ranked as the search ranks them, under a format when given. */
export type RankCandidates = (name: PersonName, inference: PatternInference | null) => Candidate[];

export async function webLead(
  env: Env,
  domain: string,
  name: PersonName,
  colleagues: readonly PersonName[],
  rank: RankCandidates,
  rejected: ReadonlySet<string>,
): Promise<WebLead | null> {
  const own = rank(name, null)
    .filter((c) => !rejected.has(c.local))
    .slice(0, PERSON_LOOKUPS);
  const asked = nameKey(`${name.first} ${name.last}`);
  const others = colleagues
    .filter((c) => nameKey(`${c.first} ${c.last}`) !== asked)
    .slice(0, MAX_COLLEAGUES)
    .map((c) => rank(c, null).slice(0, COLLEAGUE_LOOKUPS));
  const lookups = [own, ...others];
  const found = await Promise.all(
    lookups.map((list) => Promise.all(list.map((c) => webEvidence(env, `${c.local}@${domain}`)))),
  );
  const hit = (i: number) => {
    const j = found[i]?.findIndex((e) => e.gravatar || e.wkd) ?? -1;
    const c = lookups[i]?.[j];
    const e = found[i]?.[j];
    return c && e ? { c, source: e.gravatar ? ("gravatar" as const) : ("wkd" as const) } : null;
  };
  const mine = hit(0);
  if (mine) return { candidate: mine.c, evidenceFor: mine.c, source: mine.source };
  for (let i = 1; i < lookups.length; i++) {
    const theirs = hit(i);
    if (!theirs) continue;
    // The colleague's address is the domain's format: the person's address written in it.
    const inference = inferPatterns([{ localPart: theirs.c.local, name: theirs.c.name }]);
    const candidate = rank(name, inference).find((c) => !rejected.has(c.local));
    if (candidate) return { candidate, evidenceFor: theirs.c, source: theirs.source };
  }
  return null;
}
