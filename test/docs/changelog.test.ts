import { describe, expect, it } from "vitest";
import changelog from "../../CHANGELOG.md?raw";

// Spec, Versioning: breaking changes are announced in a changelog, newest first.
describe("CHANGELOG.md (spec, Versioning)", () => {
  it("lists its entries newest first, under dated headings", () => {
    const dates = [...changelog.matchAll(/^## (\d{4}-\d{2}-\d{2})$/gm)].map((m) => m[1]!);
    expect(dates.length).toBeGreaterThan(0);
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it("announces the verifier reshaping (data.email as an object, sources beside it) as a breaking change", () => {
    const breaking = changelog.split("\n").filter((l) => /\*\*Breaking/.test(l));
    expect(breaking.some((l) => l.includes("/v1/email-verifier"))).toBe(true);
    expect(changelog).toMatch(/data\.sources\[\]/);
  });
});

// Spec, Versioning 3: the dated history of breaking changes, carried below our own entries.
describe("CHANGELOG.md carries the specification's history of breaking changes", () => {
  const HISTORY = [
    ["30 Sep", /config.*metrics|metrics.*config/s],
    ["20 Sep", /401/],
    ["20 Sep", /api_key_expired/],
    ["28 Aug", /\/logs.*paginated|paginated.*\/logs/s],
    ["21 Apr", /402 quota_exceeded/],
    ["19 Jan", /X-Count-Limit.*X-Search-Limit/s],
  ] as const;

  it("lists all six entries, newest first, each with what changed", () => {
    const entries = [
      ...changelog.matchAll(/^- \*\*(\d{1,2} [A-Z][a-z]{2})\*\* - ([\s\S]*?)(?=^- |^#|(?![\s\S]))/gm),
    ].map((m) => ({ date: m[1]!, text: m[2]! }));
    expect(entries.map((e) => e.date)).toEqual(HISTORY.map(([date]) => date));
    for (const [i, [, what]] of HISTORY.entries()) expect(entries[i]!.text).toMatch(what);
  });

  it("places that history below the service's own dated entries", () => {
    const lastDated = Math.max(...[...changelog.matchAll(/^## \d{4}-\d{2}-\d{2}$/gm)].map((m) => m.index!));
    expect(changelog.indexOf("**30 Sep**")).toBeGreaterThan(lastDated);
  });
});
