import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { domains, emailSources, emails, people } from "../../src/db/schema-index.js";
import { storeCrawl } from "../../src/engine/index/store.js";
import { crawlFirstPass, FIRST_PASS } from "../../src/engine/web/crawl/crawler.js";
import { DEEP_CRAWL_QUEUE } from "../../src/engine/web/crawl/deep-crawl-queue.js";
import { canonical, HOME_SCORE, rankCandidates, scoreLink, sitemapLocations } from "../../src/engine/web/crawl/plan.js";
import { emptyCompanyFacts } from "../../src/engine/web/extract/company.js";
import { parseUserUrl, refusalReason } from "../../src/engine/web/user-url.js";
import worker from "../../src/index.js";
import { indexOf } from "../support/index-db.js";

// Every domain these tests read back is routed like the Worker routes it.
const store = () => indexOf("acme-widgets.test");

describe("crawl planning and guards", () => {
  it("ranks keyword pages (people pages first), PDFs by what their name says, articles last, and drops other pages and assets", () => {
    const ranked = rankCandidates(
      [
        "https://a.test/blog/post",
        "https://a.test/about",
        "https://a.test/contact#form",
        "https://a.test/team/",
        "https://a.test/brochure-contact.pdf",
        "https://a.test/impressum",
        "https://a.test/produkte/x",
      ],
      new Set(),
    );
    expect(ranked).toEqual([
      "https://a.test/team",
      "https://a.test/contact",
      "https://a.test/impressum",
      "https://a.test/about",
      "https://a.test/brochure-contact.pdf",
      "https://a.test/blog/post",
    ]);
  });

  it("never asks for a login, search, cart or account page (a challenged login would stop the team's second ask)", () => {
    const home = { url: "https://a.test/", score: HOME_SCORE, listsPeople: false };
    for (const path of ["/login", "/search", "/sign-in/", "/cart", "/my-account", "/wp-login.php", "/suche"])
      expect(scoreLink({ url: `https://a.test${path}`, text: "Login" }, home), path).toBeNull();
    expect(rankCandidates(["https://a.test/login", "https://a.test/team"], new Set())).toEqual(["https://a.test/team"]);
    // A page whose last segment only starts like one is a page.
    expect(scoreLink({ url: "https://a.test/searchlight-team", text: "Searchlight team" }, home)).not.toBeNull();
  });

  it("ranks links worded in Arabic, Hebrew and Thai as English ones: team and contact pages", () => {
    const home = { url: "https://a.test/", score: HOME_SCORE, listsPeople: false };
    const score = (text: string) => scoreLink({ url: "https://a.test/p/7", text }, home);
    for (const team of ["فريق العمل", "הצוות שלנו", "ทีมงาน"]) expect(score(team), team).toBe(score("Our team"));
    for (const contact of ["اتصل بنا", "צור קשר", "ติดต่อเรา"]) expect(score(contact), contact).toBe(score("Contact"));
  });

  it("ranks the home page's news items above guessed paths, and archive items whose slug says 'team' below unknown navigation", () => {
    const home = { url: "https://a.test/", score: HOME_SCORE, listsPeople: false };
    const news = scoreLink(
      { url: "https://a.test/tin-tuc/chung-toi-mo-van-phong-moi", text: "Chúng tôi mở văn phòng mới" },
      home,
    )!;
    const blog = scoreLink({ url: "https://a.test/blog/why-we-write", text: "Why we write" }, home)!;
    const unknownNav = scoreLink({ url: "https://a.test/colecao", text: "Coleção" }, home)!;
    const keywordItems = [
      scoreLink({ url: "https://a.test/noticias/2026/team-4", text: "Team 4" }, home) ?? 0,
      scoreLink({ url: "https://a.test/blog/tag/partners", text: "Partners" }, home) ?? 0,
      scoreLink({ url: "https://a.test/products/team-edition", text: "Team edition" }, home) ?? 0,
    ];
    expect(news).toBeGreaterThan(7); // the best guessed path (/team) ranks 7
    expect(news).toBeLessThan(unknownNav);
    expect(blog).toBeLessThan(1);
    for (const s of keywordItems) expect(s).toBeLessThan(unknownNav);
  });

  it("follows a short link in unknown words on the about page (its team, 'La squadra') before guessed paths, not a long text's link", () => {
    // Seen on a generated real-web site (seed 1181181516): home → "Lo studio" → "La squadra »", no
    // known word on the way; the team and its profiles were never read, guessed paths were.
    const about = { url: "https://a.test/lo-studio", score: 70 - 1, listsPeople: false };
    const team = scoreLink({ url: "https://a.test/la-squadra", text: "La squadra »" }, about)!;
    expect(team).toBeGreaterThan(7); // the best guessed path (/team) ranks 7
    expect(team).toBeLessThan(
      scoreLink(
        { url: "https://a.test/colecao", text: "Coleção" },
        { ...about, url: "https://a.test/", score: HOME_SCORE },
      )!,
    );
    expect(
      scoreLink({ url: "https://a.test/x", text: "Read the whole story of how we started in 1998 and grew" }, about),
    ).toBeNull();
    expect(
      scoreLink(
        { url: "https://a.test/la-squadra", text: "La squadra" },
        { ...about, url: "https://a.test/dove-siamo", score: 90 },
      ),
    ).toBeNull();
  });

  it("follows a short link in unknown words on a page the home menu names in unknown words, after guessed paths", () => {
    // Seen on wider-web seed 1263013114: home → "Organisatie" → "Wie zijn wij" (the team), never read.
    const section = { url: "https://a.test/organisatie", score: 8, listsPeople: false };
    const team = scoreLink({ url: "https://a.test/wie-zijn-wij", text: "Wie zijn wij" }, section)!;
    expect(team).toBeGreaterThan(0);
    expect(team).toBeLessThan(7); // below the worst guessed path
    expect(scoreLink({ url: "https://a.test/a/b/c", text: "Wie zijn wij" }, section), "deep: not followed").toBeNull();
  });

  it("reads the newsroom the home page's menu names wherever it lives, then its items, its other years late", () => {
    const home = { url: "https://a.test/", score: HOME_SCORE, listsPeople: false };
    expect(scoreLink({ url: "https://a.test/aktualnosci/archive/2026", text: "Aktualności" }, home)).toBe(49);
    const newsroom = { url: "https://a.test/aktualnosci/archive/2026", score: 49, listsPeople: false };
    expect(
      scoreLink(
        { url: "https://a.test/aktualnosci/2026-otwieramy-nowe-biuro", text: "Otwieramy nowe biuro" },
        newsroom,
      ),
    ).toBe(7.5);
    expect(scoreLink({ url: "https://a.test/aktualnosci/archive/2025", text: "2025" }, newsroom)).toBe(4);
    // Russian and Hungarian newsrooms under their transliterated words.
    expect(scoreLink({ url: "https://a.test/novosti/2026-new-office", text: "Открыли новый офис" }, home)).toBe(7.5);
    expect(scoreLink({ url: "https://a.test/hirek/2026-uj-irodat-nyitunk", text: "Új irodát nyitunk" }, home)).toBe(
      7.5,
    );
  });

  it("ranks a listing's next page as a people page once the listing shows people with their addresses, and reads ?page=1 as the listing", () => {
    const listing = { url: "https://a.test/colecao", score: 8, listsPeople: true };
    const next = { url: "https://a.test/colecao?page=2", text: "Próxima", rel: "next" };
    expect(scoreLink(next, { ...listing, knownPeople: new Set(["ana silva", "joao costa"]) })).toBe(99);
    expect(scoreLink(next, listing)).toBe(7);
    expect(scoreLink(next, { ...listing, listsPeople: false })).toBeNull();
    expect(canonical("https://a.test/team?page=1")).toBe("https://a.test/team");
    expect(canonical("https://a.test/team?page=2")).toBe("https://a.test/team?page=2");
  });

  it("reads sitemap locations, including CDATA and sitemap indexes", () => {
    expect(
      sitemapLocations(
        "<urlset><url><loc>https://a.test/x?a=1&amp;b=2</loc></url><url><loc><![CDATA[https://a.test/y]]></loc></url></urlset>",
      ),
    ).toEqual({
      urls: ["https://a.test/x?a=1&b=2", "https://a.test/y"],
      isIndex: false,
    });
    expect(
      sitemapLocations("<sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>").isIndex,
    ).toBe(true);
  });

  it("refuses private, loopback and non-http(s) targets, and in development still refuses private IP literals", () => {
    const prod = { ENVIRONMENT: "production" };
    const dev = { ENVIRONMENT: "development" };
    for (const bad of [
      "http://127.0.0.1/",
      "http://10.0.0.5/admin",
      "http://[::1]/",
      "http://localhost:8787/",
      "http://intranet.corp/",
      "http://printer.local/",
      "http://acme.com:8080/",
    ]) {
      expect(refusalReason(new URL(bad), prod), bad).not.toBeNull();
    }
    expect(refusalReason(new URL("https://www.acme.com/about"), prod)).toBeNull();
    expect(refusalReason(new URL("ftp://acme.com/"), dev)).not.toBeNull();
    for (const bad of [
      "http://127.0.0.1/",
      "http://127.1/",
      "http://0x7f.1/",
      "http://2130706433/",
      "http://[::1]/",
      "http://10.0.0.5/",
      "http://localhost:8787/",
    ]) {
      expect(refusalReason(new URL(bad), dev), bad).not.toBeNull();
    }
    expect(refusalReason(new URL("https://acme-widgets.test/"), dev)).toBeNull();
    expect(() => parseUserUrl("http://169.254.169.254/latest/meta-data", prod)).toThrow(/cannot be fetched/);
    expect(parseUserUrl("blog.acme.com/post", prod).href).toBe("https://blog.acme.com/post");
  });
});

describe("first pass", () => {
  it("honours robots.txt, reads the home page and the best linked pages within the page budget", async () => {
    const out = await crawlFirstPass(env, "acme-widgets.test");
    expect(out.origin).toBe("https://acme-widgets.test");
    // Home, then the pages it links (team, contact, about), then the sitemap's pages (asked beside
    // that first round, not before it: a rate limit counts every request): the leadership page and
    // the press release; guessed paths come after every linked page, so the budget reaches the
    // site's security.txt, and guesses that answered 404 leave no page.
    expect(out.pages.map((p) => p.url)).toEqual([
      "https://acme-widgets.test/",
      "https://acme-widgets.test/team",
      "https://acme-widgets.test/contact",
      "https://acme-widgets.test/about",
      "https://acme-widgets.test/leadership",
      "https://acme-widgets.test/press/2024-launch",
      "https://acme-widgets.test/.well-known/security.txt",
    ]);
    expect(out.disallowed).toEqual(["https://acme-widgets.test/private/staff-list"]);
    expect(out.done.length).toBeLessThanOrEqual(FIRST_PASS.maxPages + out.disallowed.length);
    expect([...out.done, ...out.pending]).toContain("https://acme-widgets.test/.well-known/security.txt");
    expect(out.sitemaps).toEqual(["https://acme-widgets.test/sitemap.xml"]);
  });

  it("honours rules written for this crawler's user agent", async () => {
    const out = await crawlFirstPass(env, "cloudy-tools.test");
    expect(out.disallowed).toContain("https://cloudy-tools.test/team");
    expect(out.pages.flatMap((p) => p.extraction.addresses.map((a) => a.email))).not.toContain(
      "hidden.member@cloudy-tools.test",
    );
  });

  it("gives up on a site that answers too slowly, as a timeout", async () => {
    const out = await crawlFirstPass(env, "slow-site.test", { ...FIRST_PASS, pageTimeoutMs: 200, totalMs: 1_000 });
    expect(out.origin).toBeNull();
    expect(out.failure).toEqual({ reason: "timed out", timedOut: true });
  });

  it("reports a site without any answer as unreachable", async () => {
    const out = await crawlFirstPass(env, "down-site.test");
    expect(out.origin).toBeNull();
    expect(out.failure?.timedOut).toBe(false);
  });
});

describe("deep-crawl queue consumer", () => {
  it("crawls the sitemap and remaining pages, stores what they show and marks the domain done", async () => {
    const first = await crawlFirstPass(env, "acme-widgets.test");
    await storeCrawl(env, {
      domain: "acme-widgets.test",
      pages: first.pages,
      status: "crawling",
      error: null,
      now: Date.now(),
    });
    const batch = createMessageBatch(DEEP_CRAWL_QUEUE, [
      {
        id: "m1",
        timestamp: new Date(),
        attempts: 1,
        body: { domain: "acme-widgets.test", done: first.done, pending: first.pending },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m1"]);
    expect(result.retryMessages).toEqual([]);

    const rows = await (await store()).select().from(emails).where(eq(emails.domain, "acme-widgets.test")).all();
    const found = rows.map((r) => r.email);
    // From the sitemap (press release, leadership) and security.txt; never the robots-refused page.
    expect(found).toEqual(
      expect.arrayContaining([
        "carla.diaz@acme-widgets.test",
        "press@acme-widgets.test",
        "mary.major@acme-widgets.test",
        "security@acme-widgets.test",
      ]),
    );
    expect(found).not.toContain("secret.person@acme-widgets.test");
    const carla = await (await store())
      .select()
      .from(people)
      .where(eq(people.email, "carla.diaz@acme-widgets.test"))
      .get();
    expect(carla).toMatchObject({
      fullName: "Carla Diaz",
      position: "Head of Communications",
      department: "communication",
      seniority: "senior",
      sourceUri: "https://acme-widgets.test/press/2024-launch",
    });
    const dom = await (await store()).select().from(domains).where(eq(domains.domain, "acme-widgets.test")).get();
    expect(dom?.crawlStatus).toBe("done");
    // The first pass may already have read every page this small site has; the deep pass adds the rest, if any.
    expect(dom?.pagesCrawled).toBeGreaterThanOrEqual(first.pages.length);
  });

  it("retries a message whose site cannot be reached and drops a malformed one", async () => {
    const batch = createMessageBatch(DEEP_CRAWL_QUEUE, [
      { id: "down", timestamp: new Date(), attempts: 1, body: { domain: "down-site.test", done: [], pending: [] } },
      { id: "junk", timestamp: new Date(), attempts: 1, body: { nope: true } },
      {
        id: "bad-allowance",
        timestamp: new Date(),
        attempts: 1,
        body: { domain: "acme-widgets.test", done: [], pending: [], allowance: { remaining: "4" } },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["junk", "bad-allowance"]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["down"]);
  });

  it("leaves messages of an unknown queue for retry", async () => {
    const batch = createMessageBatch("no-such-queue", [{ id: "x", timestamp: new Date(), attempts: 1, body: {} }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).retryBatch.retry).toBe(true);
  });
});

describe("index writes", () => {
  it("marks an address that left a re-crawled page as no longer on it, and adds the newcomer", async () => {
    await fetch("https://changing-corp.test/__version?v=1");
    const t1 = Date.now() - 60_000;
    const first = await crawlFirstPass(env, "changing-corp.test");
    await storeCrawl(env, { domain: "changing-corp.test", pages: first.pages, status: "done", error: null, now: t1 });
    await fetch("https://changing-corp.test/__version?v=2");
    const second = await crawlFirstPass(env, "changing-corp.test");
    await storeCrawl(env, {
      domain: "changing-corp.test",
      pages: second.pages,
      status: "done",
      error: null,
      now: t1 + 30_000,
    });
    const src = await (await indexOf("changing-corp.test"))
      .select()
      .from(emailSources)
      .where(eq(emailSources.uri, "https://changing-corp.test/"))
      .all();
    const still = Object.fromEntries(src.map((s) => [s.email, s.stillOnPage]));
    expect(still).toEqual({
      "old.timer@changing-corp.test": false,
      "stay.put@changing-corp.test": true,
      "new.hire@changing-corp.test": true,
    });
    const stay = src.find((s) => s.email === "stay.put@changing-corp.test")!;
    expect([stay.extractedOn, stay.lastSeenOn]).toEqual([t1, t1 + 30_000]);
  });

  it("writes hundreds of addresses in one pass without hitting D1's 100-parameter limit", async () => {
    const addresses = Array.from({ length: 250 }, (_, i) => ({
      email: `person${i}@bulk-corp.test`,
      evidence: null,
      name: null,
      position: null,
      via: "text" as const,
    }));
    const extraction = {
      addresses,
      phones: [],
      company: emptyCompanyFacts(),
      links: [],
      linkRefs: [],
      allLinks: [],
      meta: new Map(),
      title: null,
      jsonLd: [],
      lines: [],
    };
    const pages = [0, 1, 2].map((i) => ({ url: `https://bulk-corp.test/p${i}`, extraction }));
    const result = await storeCrawl(env, {
      domain: "bulk-corp.test",
      pages,
      status: "done",
      error: null,
      now: Date.now(),
    });
    expect(result.addresses).toBe(250);
    const sources = await (await indexOf("bulk-corp.test"))
      .select()
      .from(emailSources)
      .where(and(eq(emailSources.websiteUrl, "bulk-corp.test"), eq(emailSources.stillOnPage, true)))
      .all();
    expect(sources).toHaveLength(750);
  });
});
