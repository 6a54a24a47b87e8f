import { describe, expect, it } from "vitest";
import { MAX_PROBES_PER_ANSWER } from "../../src/engine/finder/confirm.js";
import { MAIL_WORLD_SPELLING_MISS_SEED, mailWorldDomain, type WorldDomain } from "../fixtures/mail-world/world.js";
import { mailWorldFinder } from "../support/mail-world-finder.js";

const CONTROL = "https://fixture-control.test/mail-world";
const seed = MAIL_WORLD_SPELLING_MISS_SEED;

/** The finder on the world under `ns`, and the SMTP checks each of its answers cost at domain `d`. */
async function counted(d: WorldDomain, ns: string) {
  const { ask } = await mailWorldFinder(seed, ns);
  const probesAt = async () => {
    const stats = (await (await fetch(`${CONTROL}/stats?seed=${seed}&ns=${ns}`)).json()) as {
      probesByDomain: Record<string, number>;
    };
    return stats.probesByDomain[d.domain] ?? 0;
  };
  return async (first: string, last: string) => {
    const before = await probesAt();
    const answer = await ask(
      `domain=${d.domain}&first_name=${encodeURIComponent(first)}&last_name=${encodeURIComponent(last)}`,
    );
    return { email: answer.email, status: answer.verification.status, probes: (await probesAt()) - before };
  };
}

describe("the cap of SMTP checks per finder answer", () => {
  // An Irish firm writing {first}.{last} on its own mail server.
  const d = mailWorldDomain(seed, 8);

  it("holds when a proposal from the domain's format is contradicted and a search follows", async () => {
    expect([d.behaviour, d.format, d.provider]).toEqual(["normal", "{first}.{last}", "other"]);
    const find = await counted(d, "finder-probe-budget-cap");
    expect(await find("Cian", "MacNamara")).toMatchObject({ email: `cian.macnamara@${d.domain}`, status: "valid" });
    // Nobody of this name works there: the proposal petra.hofer@ reads "no such mailbox" (with the
    // domain's published address tested), and the search that follows is rejected too. Both are
    // checks of the one answer (before: 2 for the proposal + 5 for the search).
    expect(d.people.some((p) => p.last === "Hofer")).toBe(false);
    const nobody = await find("Petra", "Hofer");
    expect(nobody.status).not.toBe("valid");
    expect(nobody.probes).toBeLessThanOrEqual(MAX_PROBES_PER_ANSWER);
  });
});

describe("a rejected spelling of the format a search then confirms", () => {
  // An Austrian firm writing {first}.{last} (ü → u, hyphenated given names kept) on its own mail server.
  const d = mailWorldDomain(seed, 15);

  it("leaves the format in place for the next people (Jan-Ole Strauß, Karl-Heinz Krüger)", async () => {
    expect([d.format, d.rules.umlaut]).toEqual(["{first}.{last}", "strip"]);
    expect(d.people.map((p) => p.local)).toEqual([
      "sabine.fischer",
      "ulrike.bohm",
      "barbel.lange",
      "jan-ole.strauss",
      "karl-heinz.kruger",
    ]);
    const find = await counted(d, "finder-probe-budget-spelling");
    const answers = [];
    for (const p of d.people) answers.push(await find(p.first, p.last));
    // Ulrike's search rejects ulrike.boehm@ (German spelling first at an .at domain) and confirms
    // ulrike.bohm@: a spelling miss, not a rejection of {first}.{last}. Ruled out, the format fell
    // behind every other for the next two, whose searches spent their checks elsewhere.
    expect(answers.map((a) => a.email)).toEqual(d.people.map((p) => `${p.local}@${d.domain}`));
    expect(Math.max(...answers.map((a) => a.probes))).toBeLessThanOrEqual(MAX_PROBES_PER_ANSWER);
  });
});
