import { describe, expect, it } from "vitest";
import { candidateAddresses, MIDDLE_SHOWN_FACTOR, showsMiddleNames } from "../../src/engine/finder/candidates.js";
import { readShownName, twoFamilyNameReading, writesTwoFamilyNames } from "../../src/engine/finder/name-culture.js";
import { nameSplits, splitFullName } from "../../src/engine/people/names.js";
import { shownName } from "../fixtures/mail-world/site.js";
import { MAIL_WORLD_TWO_FAMILY_NAMES_SEED, mailWorldDomain } from "../fixtures/mail-world/world.js";
import { mailWorldFinder } from "../support/mail-world-finder.js";

// This file's own copy of the mail world's state (files sharing a seed run side by side).
const WORLD_NS = "finder-smtp-readings";

describe("a full name of four words at a domain whose people carry two family names", () => {
  // Seen on mail-world seed 486990670 (after the background retries, 28 of 30): "Sofía José Martínez
  // Ortega" was read as Sofía / José Martínez / Ortega, so no candidate had her first family name.
  const d = mailWorldDomain(MAIL_WORLD_TWO_FAMILY_NAMES_SEED, 10);
  const sofia = d.people.find((p) => shownName(p) === "Sofía José Martínez Ortega")!;

  it("is read as given name, middle name and two family names on a Spanish-speaking country's domain", () => {
    expect(d.domain.endsWith(".mx")).toBe(true);
    const full = shownName(sofia);
    const usual = splitFullName(full)!;
    expect(usual).toEqual({ first: "Sofía", middle: "José Martínez", last: "Ortega" });
    expect(writesTwoFamilyNames(d.domain)).toBe(true);
    expect(twoFamilyNameReading(usual, nameSplits(full))).toEqual({
      first: "Sofía",
      middle: "José",
      last: "Martínez Ortega",
    });
    // The team page's names the same way: three words are a given name and two family names there.
    expect(readShownName("Íñigo Gómez Jiménez", "acme.es")).toEqual({ first: "Íñigo", last: "Gómez Jiménez" });
    expect(readShownName("Íñigo Gómez Jiménez", "acme.com")).toEqual({
      first: "Íñigo",
      middle: "Gómez",
      last: "Jiménez",
    });
    // A particle keeps its own reading; Portugal and Brazil use the last family name: no change there.
    expect(readShownName("Nuno das Neves", "acme.es")).toEqual(splitFullName("Nuno das Neves"));
    expect(writesTwoFamilyNames("acme.pt") || writesTwoFamilyNames("acme.com.br")).toBe(false);
  });

  it("is found over SMTP through /v1 (sjmartinez@), at the latest after the background retries", async () => {
    expect(sofia.local).toBe("sjmartinez");
    const { ask, retry } = await mailWorldFinder(MAIL_WORLD_TWO_FAMILY_NAMES_SEED, WORLD_NS);
    const query = `domain=${d.domain}&full_name=${encodeURIComponent(shownName(sofia))}`;
    const first = await ask(query);
    // The first search's checks (one spent on the imprint's address) may end before her address.
    for (let minutes = 5; minutes <= 180 && first.email !== `${sofia.local}@${d.domain}`; minutes += 5) await retry(5);
    const after = await ask(query);
    expect(after.email).toBe(`${sofia.local}@${d.domain}`);
  });
});

describe("a middle name the team page shows for most of its people", () => {
  // Seen on the mail world's {f}{m}{last} domains (seeds 1335213503, 1454314584, 1141603171): the asked
  // person's address was the 10th to 30th candidate, beyond every check of the search.
  it("raises the formats with the middle name's initial when the asked person has one too", () => {
    const team = ["Maja Kristian Østergaard", "Ragnhild Johan Ødegård", "Ingrid Kristian Lindgren"];
    const colleagues = team.map((n) => splitFullName(n)!);
    const asked = colleagues[0]!;
    expect(showsMiddleNames(colleagues)).toBe(true);
    const rank = (opts: Parameters<typeof candidateAddresses>[2]) =>
      candidateAddresses(asked, "polaris-design.se", { limit: 40, ...opts }).findIndex(
        (c) => c.local === "mkostergaard",
      );
    expect(rank({})).toBeGreaterThan(5);
    expect(rank({ colleagues })).toBeLessThan(5);
    // Without a middle name asked, or where most of the page shows none, nothing changes.
    const noMiddle = { first: "Maja", last: "Østergaard" };
    const plainTeam = [asked, ...["Åsa Dahl", "Nils Møller", "Sigrid Holm"].map((n) => splitFullName(n)!)];
    expect(showsMiddleNames(plainTeam)).toBe(false);
    expect(rank({ colleagues: plainTeam })).toBe(rank({}));
    expect(candidateAddresses(noMiddle, "polaris-design.se", { colleagues }).map((c) => c.local)).toEqual(
      candidateAddresses(noMiddle, "polaris-design.se").map((c) => c.local),
    );
    expect(MIDDLE_SHOWN_FACTOR).toBeGreaterThan(1);
  });
});
