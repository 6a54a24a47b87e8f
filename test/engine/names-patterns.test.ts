import { describe, expect, it } from "vitest";
import { applyPattern, inferPatterns, matchPatterns, percentages } from "../../src/engine/finder/patterns.js";
import { looksLikePersonName, partVariants, splitFullName } from "../../src/engine/people/names.js";
import { departmentOf, seniorityOf } from "../../src/engine/people/positions.js";
import { namesOnLine } from "../../src/engine/web/extract/people.js";

describe("names", () => {
  it("transliterates accents, ß, Ł and ø, with digraph spellings of umlauts and of ø/å as separate styles", () => {
    expect(partVariants("José")).toEqual(["jose"]);
    expect(partVariants("Strauß")).toEqual(["strauss"]);
    expect(partVariants("Łukasz")).toEqual(["lukasz"]);
    expect(partVariants("Søren")).toEqual(["soren"]);
    expect(partVariants("Søren", "plain", "expanded")).toEqual(["soeren"]);
    expect(partVariants("Håkon", "plain", "expanded")).toEqual(["haakon"]);
    // A domain may write umlauts as digraphs and ø as a bare o: the two are separate habits.
    expect(partVariants("Søren", "expanded")).toEqual(["soren"]);
    expect(partVariants("Müller")).toEqual(["muller"]);
    expect(partVariants("Müller", "expanded")).toEqual(["mueller"]);
  });

  it("drops apostrophes and tries hyphenated names joined, hyphenated and split", () => {
    expect(partVariants("O'Brien")).toEqual(["obrien"]);
    expect(partVariants("D’Angelo")).toEqual(["dangelo"]);
    expect(partVariants("Anna-Lena")).toEqual(["annalena", "anna-lena", "anna", "lena"]);
    expect(partVariants("van der Berg")).toEqual(["vanderberg", "van-der-berg", "van", "berg"]);
  });

  it("splits full names: titles, suffixes, particles, 'Last, First'", () => {
    expect(splitFullName("Jane Cooper")).toEqual({ first: "Jane", last: "Cooper" });
    expect(splitFullName("Dr. Anna Schmidt")).toEqual({ first: "Anna", last: "Schmidt" });
    expect(splitFullName("Anna van der Berg")).toEqual({ first: "Anna", last: "van der Berg" });
    expect(splitFullName("John Ronald Tolkien Jr.")).toEqual({ first: "John", middle: "Ronald", last: "Tolkien" });
    expect(splitFullName("Cooper, Jane")).toEqual({ first: "Jane", last: "Cooper" });
    expect(splitFullName("Madonna")).toBeNull();
    expect(splitFullName("Dipl.-Ing. Sigrid M. Næss")).toEqual({ first: "Sigrid", middle: "M.", last: "Næss" });
    // Polish academic titles are written in lower case (wider-web seed 2213871154: "dr Jędrzej
    // Nowak-Lewandowski" at nowak-lewandowskij@ read as a given name "dr", so the domain's hyphen
    // habit was never learnt and Bartłomiej Pawłowski-Kowalczyk was answered without it).
    expect(splitFullName("dr Jędrzej Nowak-Lewandowski")).toEqual({ first: "Jędrzej", last: "Nowak-Lewandowski" });
    expect(splitFullName("mgr inż. Wojciech Szymański")).toEqual({ first: "Wojciech", last: "Szymański" });
    expect(looksLikePersonName("dr Jędrzej Nowak-Lewandowski")).toBe(true);
  });

  it("recognises name-like lines and rejects headings and titles", () => {
    expect(looksLikePersonName("Zoë O'Brien")).toBe(true);
    expect(looksLikePersonName("Anna van der Berg")).toBe(true);
    expect(looksLikePersonName("Contact Us")).toBe(false);
    expect(looksLikePersonName("CEO CTO")).toBe(false);
    expect(looksLikePersonName("Call 555 1234")).toBe(false);
  });

  it("reads no company name as a person's: a legal form or a business word written last", () => {
    // Wider-web company names (a team photo's caption, a testimonial's signature, a footer's ©)
    // were stored as people: "Kestrel Labs", "Kato Giken", "Orion Design" (guard seed 4242).
    for (const company of [
      "Hendriks Engineering",
      "Müller Consulting Inc.",
      "Kato Giken",
      "Meijer Bouw N.V.",
      // Wider-web seed 1864203579: "Co., Ltd." cut at its comma, and a Turkish law firm.
      "Park Systems Co.",
      "Aurora Hukuk",
      // Seed 409871236: a Russian investment firm.
      "Alpha Invest",
      "Nord Konsult AB",
    ])
      expect(looksLikePersonName(company), company).toBe(false);
    expect(namesOnLine("© Müller Consulting Inc.")).toEqual([]);
    // A run of Latin words cut inside a word ("K." of "K.K.") is no name either.
    expect(namesOnLine("© 2026 Delta Shoji K.K.")).toEqual([]);
    // Names that share a word with a company stay names: Shoji is also a Japanese name.
    expect(looksLikePersonName("Tanaka Shoji")).toBe(true);
    expect(looksLikePersonName("Anna Design-Berg")).toBe(true);
  });

  it("reads a Dutch name whose particles start with the prose word 'in' (wider-web seeds 1615813308, 646014620, 3079816937)", () => {
    // "in" alone is prose ("Welcome in Amsterdam"); "in 't", "in den" before a family name are
    // particles. The team pages' "Daan J. in 't Veld" was never read as a name, so the finder never
    // learnt the middle initial its {f}{m}{last} format needs and answered nothing.
    expect(looksLikePersonName("Daan J. in 't Veld")).toBe(true);
    expect(looksLikePersonName("Joost Maria in 't Veld")).toBe(true);
    expect(looksLikePersonName("Femke in den Bosch")).toBe(true);
    expect(looksLikePersonName("Welcome in Amsterdam")).toBe(false);
    expect(splitFullName("Daan J. in 't Veld")).toEqual({ first: "Daan", middle: "J.", last: "in 't Veld" });
  });
});

describe("patterns", () => {
  const jane = { first: "Jane", last: "Cooper" };
  it("renders and matches every supported format", () => {
    expect(applyPattern("{first}.{last}", jane)).toBe("jane.cooper");
    expect(applyPattern("{f}{last}", jane)).toBe("jcooper");
    expect(applyPattern("{last}_{first}", jane)).toBe("cooper_jane");
    expect(applyPattern("{f}{m}{last}", jane)).toBeNull();
    expect(applyPattern("{f}{m}{last}", { ...jane, middle: "Ann" })).toBe("jacooper");
    expect(matchPatterns("jcooper", jane).patterns).toEqual(["{f}{last}"]);
    expect(matchPatterns("someone", jane).patterns).toEqual([]);
  });

  it("tells which transliteration a domain uses", () => {
    expect(matchPatterns("juergen.weiss", { first: "Jürgen", last: "Weiß" })).toEqual({
      patterns: ["{first}.{last}"],
      style: "expanded",
      nordic: null,
      lastForm: null,
      particleForm: null,
      firstForm: null,
    });
    expect(matchPatterns("jurgen.weiss", { first: "Jürgen", last: "Weiß" }).style).toBe("plain");
  });

  it("splits one vote among the formats an address matches", () => {
    // "al" for Al Li matches {first} and {f}{l}... and {last}{f}? no: "lia". It matches {first} and {f}{l} (a+l).
    const inf = inferPatterns([{ localPart: "al", name: { first: "Al", last: "Li" } }]);
    expect(inf.observations).toBe(1);
    const votes = Object.fromEntries(inf.shares.map((s) => [s.pattern, s.votes]));
    expect(votes).toEqual({ "{first}": 0.5, "{f}{l}": 0.5 });
  });

  it("infers mixed formats with shares that favour the majority and integer percentages summing to 100", () => {
    const samples = [
      { localPart: "jane.cooper", name: jane },
      { localPart: "john.smith", name: { first: "John", last: "Smith" } },
      { localPart: "zoe.obrien", name: { first: "Zoë", last: "O'Brien" } },
      { localPart: "plee", name: { first: "Pat", last: "Lee" } },
      { localPart: "info", name: { first: "Nobody", last: "Here" } },
    ];
    const inf = inferPatterns(samples);
    expect(inf.observations).toBe(4);
    expect(inf.shares.map((s) => s.pattern)).toEqual(["{first}.{last}", "{f}{last}"]);
    // smoothed: (3 + 2·prior) / (4 + 2) is below the raw 3/4
    expect(inf.shares[0]!.share).toBeLessThan(0.75);
    expect(inf.shares[0]!.share).toBeGreaterThan(0.5);
    const pct = percentages(inf.shares);
    expect(pct.reduce((a, p) => a + p.percentage, 0)).toBe(100);
    expect(pct.every((p) => Number.isInteger(p.percentage))).toBe(true);
    expect(pct[0]).toMatchObject({ format: "{first}.{last}" });
    expect(pct[0]!.percentage).toBeGreaterThan(pct[1]!.percentage);
  });

  it("has no formats without named addresses", () => {
    expect(inferPatterns([]).shares).toEqual([]);
    expect(percentages([])).toEqual([]);
  });
});

describe("positions", () => {
  it("reads department and seniority from titles", () => {
    expect([departmentOf("Chief Technology Officer"), seniorityOf("Chief Technology Officer")]).toEqual([
      "engineering",
      "executive",
    ]);
    expect([departmentOf("CTO"), seniorityOf("CTO")]).toEqual(["engineering", "executive"]);
    expect([departmentOf("Head of Sales"), seniorityOf("Head of Sales")]).toEqual(["sales", "senior"]);
    expect([departmentOf("Junior Software Developer"), seniorityOf("Junior Software Developer")]).toEqual([
      "software",
      "junior",
    ]);
    expect([departmentOf("CEO & Founder"), seniorityOf("CEO & Founder")]).toEqual(["executive", "executive"]);
    expect(departmentOf("Jane Cooper")).toBeNull();
  });
});
