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
