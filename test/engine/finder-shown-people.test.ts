import { describe, expect, it } from "vitest";
import { isCompanyName, shownPeople } from "../../src/engine/finder/shown-people.js";
import { MAIL_WORLD_COMPANY_NAME_SEED, mailWorldDomain } from "../fixtures/mail-world/world.js";
import { mailWorldFinder } from "../support/mail-world-finder.js";

describe("the team page's people as the SMTP search reads them", () => {
  it("leaves out a company's name with its legal form, in any country's form", () => {
    for (const [name, domain] of [
      ["Linde Partners LLP", "linde-partners.com"],
      ["Aurora Zixun Co., Ltd.", "aurora.cn"],
      ["Alpha Lojistik Ltd. Şti.", "alpha.com.tr"],
      ["Lindqvist Rådgivning AS", "lindqvist.no"],
      ["Marques Lda.", "lopes-marques.com.br"],
      ["Müller Consulting Inc.", "mueller.de"],
      ["Weber Bau GmbH", "weber-bau.de"],
    ])
      expect(isCompanyName(name!, domain!), name).toBe(true);
  });

  it("leaves out a legal form cut at its first dot and the company's name without one", () => {
    expect(isCompanyName("Kuipers B.", "peters-kuipers.be")).toBe(true);
    expect(isCompanyName("Linde Partners", "linde-partners.com")).toBe(true);
    expect(isCompanyName("Le Goff", "fournier-legoff.com")).toBe(true);
  });

  it("keeps people, also where a word of their name is a legal form in other letters or in the domain", () => {
    for (const [name, domain] of [
      ["Rachel Bennett", "linde-partners.com"],
      ["Thomas Mitchell", "mitchell-partners.co.uk"],
      ["Anna Sa", "example.com"],
      ["Ilse van der Meer", "cobalt-techniek.nl"],
      ["Lei Lin", "aurora.cn"],
    ])
      expect(isCompanyName(name!, domain!), name).toBe(false);
    expect(shownPeople(["Linde Partners LLP", null, "Linde Partners", "Rachel Bennett"], "linde-partners.com")).toEqual(
      ["Rachel Bennett"],
    );
  });

  it("finds the first person at a domain writing {first} whose page header shows the company's name twice", async () => {
    // Read as two colleagues, "Linde Partners LLP" and "Linde Partners" would share linde@: {first}
    // was lowered tenfold as a format two colleagues cannot share, rachel@ fell from the second
    // candidate beyond the five checks, and the answer was rachel_bennett@ (unknown).
    const d = mailWorldDomain(MAIL_WORLD_COMPANY_NAME_SEED, 10);
    expect([d.company, d.format, d.behaviour]).toEqual(["Linde Partners LLP", "{first}", "normal"]);
    const { ask } = await mailWorldFinder(MAIL_WORLD_COMPANY_NAME_SEED, "finder-shown-people");
    const answer = await ask(`domain=${d.domain}&first_name=Rachel&last_name=Bennett`);
    expect(answer).toMatchObject({ email: `rachel@${d.domain}`, verification: { status: "valid" } });
  });
});
