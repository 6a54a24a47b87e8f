// npm run bench -- crawl — runs inside workerd with the test network (fixture sites), not part of `npm test`.
// 1. Pages per second fetched + extracted (HTMLRewriter pass: addresses with names, company facts,
//    phones, links) against a plain regex scan of the same pages fetched the same way (baseline).
// 2. Whole first-pass crawls per second (robots.txt, ranking, extraction) of a fixture site.
// 3. Email-finder latency on a warm index against a cold one (the cold call crawls the site first).
// workerd's clock only moves at I/O, so every timed span ends with a one-row D1 read.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect, it } from "vitest";
import { emailFinder } from "../src/capabilities/email-finder.js";
import { db } from "../src/db/client.js";
import { domains, emailSources, emails } from "../src/db/schema-index.js";
import { crawlFirstPass } from "../src/engine/web/crawl/crawler.js";
import { extractPage } from "../src/engine/web/extract/page.js";

const tick = () => env.DB.prepare("select 1").first();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const PAGES = [
  "https://bench-corp.test/team",
  "https://acme-widgets.test/",
  "https://acme-widgets.test/team",
  "https://acme-widgets.test/contact",
  "https://blau-gmbh.test/kontakt",
  "https://cloudy-tools.test/contact",
];
// `--smoke` (BENCH_SMOKE=1): a round or two of each, to see the bench still runs.
const SMOKE = env.BENCH_SMOKE === "1";
const ROUNDS = SMOKE ? 2 : 30;

it("pages per second: extraction vs a plain regex scan", async () => {
  const regex = /[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/gi;
  const run = async (work: (html: string, url: string) => Promise<number> | number) => {
    await tick();
    const t = Date.now();
    let found = 0;
    let bytes = 0;
    for (let r = 0; r < ROUNDS; r++) {
      for (const url of PAGES) {
        const html = await (await fetch(url)).text();
        bytes += html.length;
        found += await work(html, url);
      }
    }
    await tick();
    const ms = Date.now() - t;
    return {
      pagesPerSecond: (ROUNDS * PAGES.length * 1000) / ms,
      found: found / ROUNDS,
      kbPerPage: bytes / 1024 / ROUNDS / PAGES.length,
    };
  };
  const baseline = await run((html) => (html.match(regex) ?? []).length);
  const full = await run(async (html, url) => (await extractPage(html, url, new URL(url).hostname)).addresses.length);
  // The fixture pages hold addresses: a pass that reads none measured a broken extraction.
  expect(full.found).toBeGreaterThan(0);
  console.log(
    `extraction: ${full.pagesPerSecond.toFixed(0)} pages/s (${full.found} addresses per round, with names/positions/company facts); ` +
      `regex baseline: ${baseline.pagesPerSecond.toFixed(0)} pages/s (${baseline.found} raw matches per round); ` +
      `ratio ${(full.pagesPerSecond / baseline.pagesPerSecond).toFixed(2)}x; average page ${full.kbPerPage.toFixed(1)} KB`,
  );
});

it("first-pass crawls per second of a fixture site", async () => {
  const rounds = SMOKE ? 2 : 20;
  await tick();
  const t = Date.now();
  let pages = 0;
  for (let i = 0; i < rounds; i++) pages += (await crawlFirstPass(env, "acme-widgets.test")).pages.length;
  await tick();
  const ms = Date.now() - t;
  expect(pages).toBeGreaterThan(0);
  console.log(
    `first pass (robots + home + ranked pages): ${((pages * 1000) / ms).toFixed(0)} pages/s, ${(ms / rounds).toFixed(1)} ms per site`,
  );
});

it("finder latency: warm index vs cold (crawl on demand)", async () => {
  const ctx = { env, now: Date.now, waitUntil: () => {}, surface: "v1" as const, accountId: 1 };
  const params = { domain: "bench-corp.test", first_name: "Zoe", last_name: "Quinn" } as Parameters<
    typeof emailFinder.handler
  >[0];
  const store = db(env.DB);
  const forget = async () => {
    await store.delete(emailSources).where(eq(emailSources.websiteUrl, "bench-corp.test"));
    await store.delete(emails).where(eq(emails.domain, "bench-corp.test"));
    await store.delete(domains).where(eq(domains.domain, "bench-corp.test"));
  };
  const time = async () => {
    await tick();
    const t = Date.now();
    const res = await emailFinder.handler(params, ctx);
    await tick();
    return { ms: Date.now() - t, email: (res.body as { data: { email: string } }).data.email };
  };
  const cold: number[] = [];
  const warm: number[] = [];
  let answer = "";
  for (let i = 0; i < (SMOKE ? 1 : 8); i++) {
    await forget();
    const c = await time();
    cold.push(c.ms);
    answer = c.email;
    for (let j = 0; j < (SMOKE ? 2 : 10); j++) warm.push((await time()).ms);
  }
  // The fixture site publishes Zoe Quinn's address pattern: the finder must answer one.
  expect(answer).toMatch(/@bench-corp\.test$/);
  console.log(
    `finder (${answer}, index of ${(await store.select().from(emails).where(eq(emails.domain, "bench-corp.test")).all()).length} addresses): ` +
      `warm median ${median(warm)} ms, cold median ${median(cold)} ms (includes the first-pass crawl); cold/warm ${(median(cold) / Math.max(1, median(warm))).toFixed(1)}x`,
  );
});
