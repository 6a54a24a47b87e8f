// Regression guard: the engine on randomized company sites (test/fixtures/generator)
// of three fixed seeds, measured through the /v1 routes as a customer meets it. The seeds were
// picked before any result was seen. `npm run bench -- quality` measures fresh seeds the same way.
import { describe, expect, it } from "vitest";
import { GUARD_SEEDS, GUARD_SITES, generateSites } from "../fixtures/generator/index.js";
import { call, createAccount } from "../support/accounts.js";
import { GOALS, measureSites, ratios, report, summarize } from "../support/generated-quality.js";

const sites = GUARD_SEEDS.flatMap((seed) => generateSites(seed, GUARD_SITES));

describe(`generated sites (seeds ${GUARD_SEEDS.join(", ")} × ${GUARD_SITES})`, () => {
  it("meet the goals: format and finder top-1, first-answer and settled recall, no trap, precision", async () => {
    const measures = await measureSites(sites);
    console.log(report("regression guard", measures));
    const { totals } = summarize(measures);
    const r = ratios(totals);
    expect.soft(r.format, "format top-1").toBeGreaterThanOrEqual(GOALS.format);
    expect.soft(r.finder, "finder top-1").toBeGreaterThanOrEqual(GOALS.finder);
    expect.soft(r.first, "first-answer recall").toBeGreaterThanOrEqual(GOALS.first);
    expect.soft(r.settled, "settled recall").toBeGreaterThanOrEqual(GOALS.settled);
    expect.soft(totals.trapsReturned, "traps returned").toBe(0);
    expect.soft(r.precision, "precision").toBe(1);
    expect(totals.deliverable, "verifier deliverable without SMTP proof").toBe(0);
  }, 120_000);

  it("never have an address called deliverable by the verifier, which has no SMTP prober in tests", async () => {
    const { headers } = await createAccount({ plan: "scale" });
    const addresses = sites.flatMap((s) => [
      ...s.labels.published
        .filter((p) => p.kind === "personal")
        .slice(0, 1)
        .map((p) => p.email),
      ...s.labels.probes.slice(0, 1).map((p) => p.expected),
    ]);
    expect(addresses.length).toBeGreaterThan(GUARD_SEEDS.length * GUARD_SITES);
    const verdicts = await Promise.all(
      addresses.map(async (email) => {
        const res = await call(`/v1/email-verifier?email=${encodeURIComponent(email)}`, { headers });
        expect(res.status, email).toBe(200);
        const body = (await res.json()) as {
          data: { email: { result: string; smtp_check_run: boolean; mx_records: boolean } };
        };
        return { email, ...body.data.email };
      }),
    );
    // The fixture DNS gives each generated domain an MX record, so the verdict rests on SMTP alone.
    expect(verdicts.filter((v) => !v.mx_records)).toEqual([]);
    expect(verdicts.filter((v) => v.result === "deliverable")).toEqual([]);
  });
});
