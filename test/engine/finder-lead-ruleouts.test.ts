import { describe, expect, it } from "vitest";
import { MAIL_WORLD_LEAD_SEED, mailWorldDomain } from "../fixtures/mail-world/world.js";
import { mailWorldFinder } from "../support/mail-world-finder.js";

describe("web evidence after a search's checks found nothing", () => {
  it("looks up the colleagues' addresses in the formats the checks did not reject", async () => {
    const d = mailWorldDomain(MAIL_WORLD_LEAD_SEED, 4);
    expect([d.format, d.behaviour, d.provider]).toEqual(["{last}.{first}", "normal", "google"]);
    expect(d.people.map((p) => `${p.local}${p.gravatar ? " (Gravatar)" : ""}`)).toEqual([
      "nguyen.huy",
      "phan.thao (Gravatar)",
    ]);
    const { ask, billed } = await mailWorldFinder(MAIL_WORLD_LEAD_SEED, "finder-lead-ruleouts");
    // Huy Nguyễn is the first person asked; nguyen.huy@ is his seventh candidate, so his five checks
    // are rejected. Thảo Phan's three likeliest addresses as ranked before those checks are in the
    // formats they just rejected (phan.thao@ is her seventh too): nothing found, and the open answer
    // was his sixth candidate. Ranked with the rejected formats ruled out, phan.thao@ is among her
    // likeliest: her Gravatar profile shows the domain's format, and the answer is nguyen.huy@, open
    // (no check has accepted it) and not billed.
    const answer = await ask(`domain=${d.domain}&first_name=Huy&last_name=${encodeURIComponent("Nguyễn")}`);
    expect(answer).toMatchObject({ email: `nguyen.huy@${d.domain}`, verification: { status: "unknown" } });
    expect(await billed()).toBe(0);
  });
});
