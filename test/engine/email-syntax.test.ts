import { describe, expect, it } from "vitest";
import { parseEmail, suggestCorrection, toAsciiDomain } from "../../src/engine/verify/email-syntax.js";
import { gibberishVerdict, isGibberish } from "../../src/engine/verify/gibberish.js";

describe("parseEmail", () => {
  it.each([
    "jane@example.com",
    "Jane.Doe@Example.COM",
    "jane+news@example.com",
    "o'brien@example.ie",
    "j_d-x!#$%&*/=?^`{|}~@example.com",
    '"john doe"@example.com',
    "jörg@example.de", // RFC 6531 UTF-8 local part
    "a@b.co",
    `${"a".repeat(64)}@example.com`,
  ])("accepts %s", (email) => {
    expect(parseEmail(email).ok).toBe(true);
  });

  it.each([
    ["", "empty"],
    ["jane.example.com", "no_at_sign"],
    ["@example.com", "empty_local_part"],
    [".jane@example.com", "bad_local_part"],
    ["jane.@example.com", "bad_local_part"],
    ["ja..ne@example.com", "bad_local_part"],
    ["ja ne@example.com", "bad_local_part"],
    ["jane@@example.com", "bad_local_part"],
    ['"unterminated@example.com', "bad_local_part"],
    [`${"a".repeat(65)}@example.com`, "local_part_too_long"],
    ["jane@[192.0.2.1]", "domain_literal"],
    ["jane@localhost", "bad_domain"],
    ["jane@example", "bad_domain"],
    ["jane@-example.com", "bad_domain"],
    ["jane@example-.com", "bad_domain"],
    ["jane@exa_mple.com", "bad_domain"],
    ["jane@example.123", "bad_domain"],
    ["jane@example..com", "bad_domain"],
    [`jane@${"a".repeat(64)}.com`, "bad_domain"],
    ["jane@exa mple.com", "bad_domain"],
    ["jane@example.com/evil", "bad_domain"],
    [`${"a".repeat(60)}@${Array.from({ length: 4 }, () => "b".repeat(60)).join(".")}.com`, "address_too_long"],
    [`a@${Array.from({ length: 5 }, () => "b".repeat(60)).join(".")}.com`, "bad_domain"],
  ])("rejects %j (%s)", (email, problem) => {
    const parsed = parseEmail(email);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toBe(problem);
  });

  it("enforces the 254-octet path limit", () => {
    const domain = `${Array.from({ length: 3 }, () => "d".repeat(62)).join(".")}.com`; // 192 octets
    expect(parseEmail(`${"a".repeat(64)}@${domain}`).ok).toBe(false);
    expect(parseEmail(`${"a".repeat(60)}@${domain}`).ok).toBe(true);
  });

  it("normalises: ASCII lowercase domain, lowercased key, original local part kept", () => {
    const parsed = parseEmail("  Jane.Doe@Bücher.DE ");
    expect(parsed).toEqual({
      ok: true,
      localPart: "Jane.Doe",
      domain: "xn--bcher-kva.de",
      domainUnicode: "bücher.de",
      normalised: "jane.doe@xn--bcher-kva.de",
    });
  });

  it("toAsciiDomain keeps punycode input and refuses hosts the URL parser would rewrite", () => {
    expect(toAsciiDomain("xn--bcher-kva.de")).toBe("xn--bcher-kva.de");
    expect(toAsciiDomain("Example.com.")).toBe("example.com");
    expect(toAsciiDomain("evil.com@good.com")).toBeNull();
    expect(toAsciiDomain("192.168.0.1")).toBeNull();
  });
});

describe("suggestCorrection", () => {
  it.each([
    ["jane", "gmial.com", "jane@gmail.com"],
    ["jane", "hotmial.com", "jane@hotmail.com"],
    ["jane", "yahooo.com", "jane@yahoo.com"],
    ["jane", "outlok.com", "jane@outlook.com"],
  ])("%s@%s -> %s", (local, domain, expected) => {
    expect(suggestCorrection(local, domain)).toBe(expected);
  });

  it("leaves correct webmail and company domains alone", () => {
    expect(suggestCorrection("jane", "gmail.com")).toBeNull();
    expect(suggestCorrection("jane", "acme-verify.test")).toBeNull();
    expect(suggestCorrection("jane", "stripe.com")).toBeNull();
  });
});

describe("gibberish detection", () => {
  it.each([
    "jane",
    "jane.doe",
    "j.smith",
    "john1985",
    "marie-claire",
    "szczepanski",
    "nguyen.van",
    "oconnor",
    "kristjansdottir",
    "wojciechowski",
    "info",
    "sales",
    "test123",
    "doherty",
    "ewert",
    "xu",
    "li.wei",
  ])("%s reads as a real local part", (local) => {
    expect(gibberishVerdict(local)).toMatchObject({ gibberish: false });
  });

  it.each([
    ["xkqwzjv", "surprisal"],
    ["jdhfjshdf", "surprisal"],
    ["qzxvbn", "surprisal"],
    ["asdfgh", "keyboard"],
    ["qwerty", "keyboard"],
    ["zzzzzz", "repeated"],
    ["a8f7d6s5", "alternating"],
    ["d41d8cd98f00b204e9800998ecf8427e", "hex"],
  ])("%s is gibberish (%s)", (local, reason) => {
    expect(gibberishVerdict(local)).toMatchObject({ gibberish: true, reason });
  });

  it("catches most random letter strings and ignores the +tag", () => {
    // Deterministic pseudo-random strings (LCG) so the test cannot flake.
    let seed = 42;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let caught = 0;
    for (let i = 0; i < 500; i++) {
      const s = Array.from({ length: 8 + Math.floor(next() * 4) }, () =>
        String.fromCharCode(97 + Math.floor(next() * 26)),
      ).join("");
      if (isGibberish(s)) caught++;
    }
    expect(caught).toBeGreaterThan(350);
    expect(isGibberish("jane+xkqwzjv")).toBe(false);
  });
});
