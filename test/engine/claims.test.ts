import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  addClaim,
  assertNotClaimed,
  claimedAmong,
  filterClaimed,
  normaliseEmail,
  normalisePhone,
  normaliseProfileUrl,
} from "../../src/engine/index/claims.js";
import { ApiError, apiErrorOf } from "../../src/http/errors.js";

describe("claim normalisers", () => {
  it("emails: lowercase, trimmed, IDN domains in punycode", () => {
    expect(normaliseEmail("  Jane.Doe@Example.COM ")).toBe("jane.doe@example.com");
    expect(normaliseEmail("anna@bücher.de")).toBe("anna@xn--bcher-kva.de");
    expect(normaliseEmail("no-at-sign")).toBeNull();
    expect(normaliseEmail("a b@example.com")).toBeNull();
  });

  it("phones: E.164, only valid numbers", () => {
    expect(normalisePhone("+1 (415) 555-2671")).toBe("+14155552671");
    expect(normalisePhone("06 12 34 56 78", "FR")).toBe("+33612345678");
    expect(normalisePhone("06 12 34 56 78")).toBeNull();
    expect(normalisePhone("+1 12")).toBeNull();
  });

  it("profiles: one canonical URL for every spelling", () => {
    const canonical = "https://www.linkedin.com/in/jane-doe";
    for (const v of [
      "https://www.linkedin.com/in/jane-doe",
      "http://linkedin.com/in/Jane-Doe/",
      "fr.linkedin.com/in/jane-doe?originalSubdomain=fr",
      "https://www.linkedin.com/in/jane-doe/details/experience/",
      "jane-doe",
    ]) {
      expect(normaliseProfileUrl(v), v).toBe(canonical);
    }
    expect(normaliseProfileUrl("https://www.linkedin.com/in/j%C3%B6rg-m")).toBe("https://www.linkedin.com/in/jörg-m");
    expect(normaliseProfileUrl("https://www.linkedin.com/company/acme")).toBeNull();
    expect(normaliseProfileUrl("https://evil.example/in/jane-doe")).toBeNull();
    expect(normaliseProfileUrl("https://linkedin.com.evil.example/in/jane-doe")).toBeNull();
  });
});

describe("assertNotClaimed and filterClaimed", () => {
  it("throws 451 with the type for the kind", async () => {
    await addClaim(env, "email", "owner@claims.test", null);
    await addClaim(env, "phone", "+33612345678", null);
    await addClaim(env, "linkedin", "https://www.linkedin.com/in/owner", null);
    const cases: [Parameters<typeof assertNotClaimed>[1], string, string][] = [
      ["email", "Owner@Claims.test", "claimed_email"],
      ["phone", "+33 6 12 34 56 78", "claimed_phone"],
      ["linkedin", "linkedin.com/in/Owner/", "claimed_linkedin"],
    ];
    for (const [kind, value, type] of cases) {
      const err = apiErrorOf(await assertNotClaimed(env, kind, value).catch((e) => e))!;
      expect(err, value).toBeInstanceOf(ApiError);
      expect(err.status).toBe(451);
      expect(err.type).toBe(type);
    }
    await expect(assertNotClaimed(env, "email", "someone.else@claims.test")).resolves.toBeUndefined();
    await expect(assertNotClaimed(env, "email", "garbage")).resolves.toBeUndefined();
  });

  it("filterClaimed drops claimed values and keeps the others in order and spelling", async () => {
    await addClaim(env, "email", "gone@filter.test", null);
    const many = Array.from({ length: 250 }, (_, i) => `person${i}@filter.test`);
    await addClaim(env, "email", "person200@filter.test", null);
    const kept = await filterClaimed(env, "email", ["A@filter.test", "GONE@filter.test", ...many]);
    expect(kept[0]).toBe("A@filter.test");
    expect(kept).not.toContain("GONE@filter.test");
    expect(kept).not.toContain("person200@filter.test");
    expect(kept).toHaveLength(1 + 249);
    expect(await filterClaimed(env, "email", [])).toEqual([]);
  });

  it("finds the claimed addresses among thousands in a few statements (a domain of 12,000 addresses)", async () => {
    const many = Array.from({ length: 12_000 }, (_, i) => `someone${i}@large-domain.test`);
    for (const i of [0, 4_999, 5_000, 11_999]) await addClaim(env, "email", many[i]!, null);
    let statements = 0;
    const prepare = (sql: string) => {
      statements++;
      return env.DB.prepare(sql);
    };
    const counting = { ...env, DB: { prepare } as unknown as D1Database };
    const claimed = await claimedAmong(counting, "email", many);
    expect([...claimed].sort()).toEqual([many[0], many[11_999], many[4_999], many[5_000]].sort());
    // Values travel as JSON arrays of 5,000 (D1: 100 bound parameters, 2 MB per string).
    expect(statements).toBe(3);
  });
});
