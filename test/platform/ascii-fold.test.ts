import { describe, expect, it } from "vitest";
import { foldForPlaceholders } from "../../src/engine/finder/stated-format.js";
import { companyKey } from "../../src/engine/index/read.js";
import { nameKey, partSpellings } from "../../src/engine/people/names.js";
import { fold } from "../../src/engine/web/crawl/plan.js";
import { slugify } from "../../src/leads/attributes.js";
import { asciiFold } from "../../src/platform/ascii-fold.js";

describe("asciiFold (the service's one accent fold)", () => {
  it("drops accents and keeps case: “Über Straße” becomes “Uber Strasse”", () => {
    expect(asciiFold("Über Straße")).toBe("Uber Strasse");
    expect(asciiFold("prénom.nom, imię.nazwisko, adı.soyadı")).toBe("prenom.nom, imie.nazwisko, adi.soyadi");
  });

  it("spells the Latin letters no decomposition takes apart: ß ł ø đ ı æ and their capitals", () => {
    expect(asciiFold("ß ẞ ł Ł ø Ø đ Đ ı æ Æ")).toBe("ss SS l L o O d D i ae AE");
  });

  it("leaves other scripts as they are unless asked to transliterate", () => {
    expect(asciiFold("個人情報 Москва")).toBe("個人情報 Москва");
    expect(asciiFold("Москва", { scripts: "transliterate" })).toBe("Moskva");
  });

  it("folds compatibility forms (full-width letters, ligatures) only when asked", () => {
    expect(asciiFold("ｔｅａｍ ﬁnance")).toBe("ｔｅａｍ ﬁnance");
    expect(asciiFold("ｔｅａｍ ﬁnance", { compatibility: true })).toBe("team finance");
  });

  it("spells umlauts and the Nordic ø and å plain by default and as digraphs when asked", () => {
    expect(asciiFold("Müller Sørensen Ålund")).toBe("Muller Sorensen Alund");
    expect(asciiFold("Müller", { umlauts: "expanded" })).toBe("Mueller");
    expect(asciiFold("Sørensen Ålund", { nordic: "expanded" })).toBe("Soerensen Aalund");
    expect(asciiFold("müller sørensen", { scripts: "transliterate" })).toBe("muller sorensen");
    expect(asciiFold("müller sørensen", { scripts: "transliterate", umlauts: "expanded", nordic: "expanded" })).toBe(
      "mueller soerensen",
    );
  });
});

describe("the folds built on it compare the same letters the same way", () => {
  it("crawl keywords, placeholders, company names, attribute slugs and name keys all read “Ørsted Łódź” alike", () => {
    expect(fold("Ørsted Łódź")).toBe("orsted lodz");
    expect(foldForPlaceholders("Ørsted Łódź")).toBe("Orsted Lodz");
    expect(companyKey("Ørsted Łódź A/S")).toBe("orsted lodz a s");
    expect(slugify("Ørsted Łódź")).toBe("orsted_lodz");
    expect(nameKey("Ørsted Łódź")).toBe("orstedlodz");
  });

  it("keeps the name finder's two Nordic spellings apart", () => {
    const spelt = (nordic: "plain" | "expanded") => partSpellings("Sørensen", "plain", nordic).map((s) => s.text);
    expect(spelt("plain")).toEqual(["sorensen"]);
    expect(spelt("expanded")).toEqual(["soerensen"]);
  });
});
