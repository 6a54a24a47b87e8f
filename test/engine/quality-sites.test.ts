// The quality goals on whole fixture sites (test/fixtures/sites/<host>/, zones in test/fixtures/dns/quality.json):
// one test per site structure, crawling the way the service does (first pass, then the deep pass).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  type CrawlOutcome,
  crawlDeepPass,
  crawlFirstPass,
  DEEP_PASS,
  FIRST_PASS,
} from "../../src/engine/web/crawl/crawler.js";

const addressesOf = (...outcomes: CrawlOutcome[]) =>
  new Set(outcomes.flatMap((o) => o.pages.flatMap((p) => p.extraction.addresses.map((a) => a.email))));
const urlsOf = (o: CrawlOutcome) => o.pages.map((p) => p.url);
const deep = (domain: string, first: CrawlOutcome) =>
  crawlDeepPass(env, domain, { done: first.done, pending: first.pending });

describe("site structures the first pass must reach", () => {
  it("reaches a German team page linked only as 'Anwälte' through http:// links, and the obfuscated addresses on it", async () => {
    const first = await crawlFirstPass(env, "bergmann-partner.de");
    expect(first.origin).toBe("https://bergmann-partner.de");
    expect(urlsOf(first)).toContain("https://bergmann-partner.de/anwaelte");
    const found = addressesOf(first);
    for (const a of ["katrin.bergmann", "juergen.mueller", "soeren.schaefer", "lea.hoffmann", "kanzlei"])
      expect(found).toContain(`${a}@bergmann-partner.de`);
    // The HTML comment, the form placeholder and the web designer's address stay out.
    expect([...found].filter((a) => /m\.alt|vorname|pixelwerk/.test(a))).toEqual([]);
  });

  it("follows a Spanish team listing through 'Siguiente »' pages on the www host the apex redirects to", async () => {
    const first = await crawlFirstPass(env, "grupo-olivar.es");
    expect(first.origin).toBe("https://www.grupo-olivar.es");
    expect(urlsOf(first)).toEqual(
      expect.arrayContaining([
        "https://www.grupo-olivar.es/equipo",
        "https://www.grupo-olivar.es/equipo/pagina/2",
        "https://www.grupo-olivar.es/equipo/pagina/3",
      ]),
    );
    expect([...addressesOf(first)]).toEqual(
      expect.arrayContaining([
        "jruiz@grupo-olivar.es",
        "csanchez@grupo-olivar.es",
        "pnavarro@grupo-olivar.es",
        "administracion@grupo-olivar.es",
      ]),
    );
  });

  it("reads one profile page per person linked from an Italian 'Chi siamo' page", async () => {
    const first = await crawlFirstPass(env, "studio-fontana.it");
    const profiles = urlsOf(first).filter((u) => u.includes("/persone/"));
    expect(profiles).toHaveLength(4);
    const found = first.pages.flatMap((p) => p.extraction.addresses);
    expect(found.find((a) => a.email === "giulia.rossi@studio-fontana.it")?.name).toEqual({
      first: "Giulia",
      last: "Rossi",
    });
    expect(found.find((a) => a.email === "francesca.deluca@studio-fontana.it")?.name).toEqual({
      first: "Francesca",
      last: "De Luca",
    });
  });

  it("follows apex → www and a 301 moved path, reading the Dutch team page once and its <noscript> addresses", async () => {
    const first = await crawlFirstPass(env, "van-dijk-advies.nl");
    expect(first.origin).toBe("https://www.van-dijk-advies.nl");
    const urls = urlsOf(first);
    expect(urls.filter((u) => u === "https://www.van-dijk-advies.nl/over-ons/ons-team")).toHaveLength(1);
    expect(new Set(urls).size).toBe(urls.length);
    expect([...addressesOf(first)]).toEqual(
      expect.arrayContaining([
        "p.vandijk@van-dijk-advies.nl",
        "s.devries@van-dijk-advies.nl",
        "d.bakker@van-dijk-advies.nl",
        "f.jansen@van-dijk-advies.nl",
      ]),
    );
  });

  it("finds the team page of a script-only home page through a sitemap index and its child sitemap", async () => {
    const first = await crawlFirstPass(env, "eastwest-logistics.com");
    expect(urlsOf(first)).toContain("https://eastwest-logistics.com/en/about-us/our-people");
    expect([...addressesOf(first)]).toEqual(
      expect.arrayContaining([
        "lukasz.wrobel@eastwest-logistics.com",
        "mai.nguyen@eastwest-logistics.com",
        "zoe.bronte-hughes@eastwest-logistics.com",
      ]),
    );
  });

  it("reads a Japanese staff page linked as 'スタッフ紹介' and addresses written with ＠ and ★", async () => {
    const first = await crawlFirstPass(env, "sakura-kogyo.co.jp");
    expect([...addressesOf(first)]).toEqual(
      expect.arrayContaining([
        "tanaka@sakura-kogyo.co.jp",
        "ito@sakura-kogyo.co.jp",
        "info@sakura-kogyo.co.jp",
        "saiyo@sakura-kogyo.co.jp",
      ]),
    );
  });
});

describe("what the deep pass settles", () => {
  it("reads a ?page=2 listing's profiles and the vCards they link, and nothing from comments, placeholders or packages", async () => {
    const first = await crawlFirstPass(env, "northwind-labs.com");
    const rest = await deep("northwind-labs.com", first);
    const found = addressesOf(first, rest);
    for (const a of [
      "rnguyen",
      "mlee",
      "praman",
      "dokafor",
      "hschultz",
      "tortega",
      "gkim",
      "bcarter",
      "press",
      "sales",
      "support",
    ])
      expect(found).toContain(`${a}@northwind-labs.com`);
    expect(found.size).toBe(11);
    // Priya Raman publishes her address only in her vCard.
    const priya = [...first.pages, ...rest.pages]
      .flatMap((p) => p.extraction.addresses)
      .find((a) => a.email === "praman@northwind-labs.com");
    expect(priya).toMatchObject({ name: { first: "Priya", last: "Raman" }, position: "VP Engineering", via: "vcard" });
  });

  it("reads a vCard-only address linked from an Austrian team page", async () => {
    const first = await crawlFirstPass(env, "alpenblick-hotel.at");
    const found = addressesOf(first, await deep("alpenblick-hotel.at", first));
    expect(found).toContain("m.lossl@alpenblick-hotel.at");
  });

  it("keeps the crawl bounded by its page budgets", async () => {
    const first = await crawlFirstPass(env, "northwind-labs.com");
    expect(first.pages.length).toBeLessThanOrEqual(FIRST_PASS.maxPages);
    const rest = await deep("northwind-labs.com", first);
    expect(rest.pages.length).toBeLessThanOrEqual(DEEP_PASS.maxPages);
  });
});
