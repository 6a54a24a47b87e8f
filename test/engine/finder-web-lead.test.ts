import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { candidateAddresses } from "../../src/engine/finder/candidates.js";
import type { PatternInference } from "../../src/engine/finder/patterns.js";
import { type RankCandidates, webLead } from "../../src/engine/finder/web-lead.js";
import type { PersonName } from "../../src/engine/people/names.js";
import { webEvidence } from "../../src/engine/verify/web-evidence.js";
import type { Env } from "../../src/env.js";
import { shownName } from "../fixtures/mail-world/site.js";
import {
  MAIL_WORLD_GUARD_SEEDS,
  MAIL_WORLD_REFUSING_EVIDENCE_SEED,
  MAIL_WORLD_WEB_EVIDENCE_SEED,
  mailWorldDomain,
  type WorldDomain,
} from "../fixtures/mail-world/world.js";
import { mailWorldFinder } from "../support/mail-world-finder.js";

const WORLD_NS = "finder-web-lead";
const nameOf = (d: WorldDomain, shown: string): PersonName => {
  const p = d.people.find((x) => shownName(x) === shown)!;
  return { first: p.first, last: p.last };
};
const rankAt =
  (domain: string): RankCandidates =>
  (name: PersonName, inference: PatternInference | null) =>
    candidateAddresses(name, domain, { inference });

describe("web evidence for an address nobody confirmed yet", () => {
  // Seed 5's thirteenth domain writes {last} (byrne@); Conor McLoughlin has a Gravatar profile.
  const irish = mailWorldDomain(MAIL_WORLD_GUARD_SEEDS[0], 12);
  const conor = nameOf(irish, "Conor McLoughlin");
  const ailbhe = nameOf(irish, "Ailbhe Byrne");

  it("leads with the person's own candidate that has a Gravatar profile, even sixth in the ranking", async () => {
    expect(irish.format).toBe("{last}");
    const rank = rankAt(irish.domain);
    expect(rank(conor, null).findIndex((c) => c.local === "mcloughlin")).toBe(5);
    const lead = await webLead(env as Env, irish.domain, conor, [ailbhe], rank, new Set());
    expect(lead).toMatchObject({ candidate: { local: "mcloughlin" }, source: "gravatar" });
  });

  it("never leads with an address a check of the search rejected", async () => {
    const lead = await webLead(env as Env, irish.domain, conor, [], rankAt(irish.domain), new Set(["mcloughlin"]));
    expect(lead).toBeNull();
  });

  it("proposes nothing where nobody's likeliest addresses have evidence (absence proves nothing)", async () => {
    // Conor's profile is at his fifth candidate, beyond the three looked up for a colleague.
    expect(await webLead(env as Env, irish.domain, ailbhe, [conor], rankAt(irish.domain), new Set())).toBeNull();
  });

  it("reads a key from a domain's Web Key Directory only where the domain serves its policy file", async () => {
    const vn = mailWorldDomain(MAIL_WORLD_GUARD_SEEDS[1], 0);
    expect(vn.wkd).toBe(true);
    const keyed = vn.people.find((p) => p.wkdKey)!;
    expect(await webEvidence(env as Env, `${keyed.local}@${vn.domain}`)).toEqual({ gravatar: false, wkd: true });
    const noPolicy = irish.people.find((p) => !p.gravatar)!;
    expect(await webEvidence(env as Env, `${noPolicy.local}@${irish.domain}`)).toEqual({ gravatar: false, wkd: false });
  });
});

describe("a colleague's Gravatar profile at a server that greylists every address", () => {
  const d = mailWorldDomain(MAIL_WORLD_WEB_EVIDENCE_SEED, 6);
  const malte = d.people.find((p) => shownName(p) === "Malte Hölzl")!;

  it("shows the domain's format: the first answer names mhoelzl@ (unknown), valid after the retry", async () => {
    expect([d.behaviour, d.greylistStyle, d.format]).toEqual(["greylisting", "whole_client", "{f}{last}"]);
    expect(d.people.find((p) => shownName(p) === "Heike Köhler")).toMatchObject({ local: "hkoehler", gravatar: true });
    expect(malte).toMatchObject({ local: "mhoelzl", gravatar: false });
    const { ask, retry } = await mailWorldFinder(MAIL_WORLD_WEB_EVIDENCE_SEED, WORLD_NS);
    const query = `domain=${d.domain}&first_name=${encodeURIComponent(malte.first)}&last_name=${encodeURIComponent(malte.last)}`;
    const first = await ask(query);
    // Without the colleague's profile the answer is the prior's guess, malte.hoelzl@.
    expect(first.email).toBe(`mhoelzl@${d.domain}`);
    expect(first.verification.status).toBe("unknown");
    expect(d.greylistSeconds).toBeLessThanOrEqual(1800);
    for (let minutes = 5; minutes <= 30; minutes += 5) await retry(5);
    const after = await ask(query);
    expect(after).toMatchObject({ email: `mhoelzl@${d.domain}`, verification: { status: "valid" } });
  });
});

describe("a colleague's Gravatar profile at a server that refuses the prober", () => {
  const d = mailWorldDomain(MAIL_WORLD_REFUSING_EVIDENCE_SEED, 4);
  const ask = (p: WorldDomain["people"][number]) =>
    `domain=${d.domain}&first_name=${encodeURIComponent(p.first)}&last_name=${encodeURIComponent(p.last)}`;

  it("leads the open answers of the others, never valid and never billed", async () => {
    expect([d.behaviour, d.format]).toEqual(["refuses_prober", "{f}{last}"]);
    const [monica, margarida, leonor] = d.people;
    expect(margarida).toMatchObject({ local: "mdocarmo", gravatar: true });
    const world = await mailWorldFinder(MAIL_WORLD_REFUSING_EVIDENCE_SEED, WORLD_NS);
    // The first search is refused; the colleague's profile shows the format.
    const first = await world.ask(ask(monica!));
    expect(first).toMatchObject({ email: `mfonseca@${d.domain}`, verification: { status: "unknown" } });
    // The next person is proposed from that stored evidence; the refused check leaves it open, unbilled
    // like the search's own open answers (it was billed before: the proposal path billed any unknown).
    const next = await world.ask(ask(leonor!));
    expect(next).toMatchObject({ email: `lrodrigues@${d.domain}`, verification: { status: "unknown" } });
    expect(await world.billed()).toBe(0);
  });
});
