// npm run bench -- quality — engine quality on the fixture web of test/fixtures/quality/truth.json
// (ten company sites in seven languages, each with its own structure and way of publishing
// addresses). Runs inside workerd with the test network; not part of `npm test`.
// Prints, over every site: recall of the published addresses in the first answer (first pass
// only) and once the deep pass has settled, precision of everything found, email-format top-1
// and finder top-1 (people the site names without an address), against the quality goals.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect, it } from "vitest";
import { db } from "../src/db/client.js";
import { domains, emailSources, emails, people } from "../src/db/schema-index.js";
import { proposeAddress } from "../src/engine/finder/email-finder.js";
import { inferPatterns } from "../src/engine/finder/patterns.js";
import { emailsOfDomain, namedAddresses } from "../src/engine/index/read.js";
import { storeCrawl } from "../src/engine/index/store.js";
import { crawlFirstPass } from "../src/engine/web/crawl/crawler.js";
import { runDeepCrawl } from "../src/engine/web/crawl/deep-crawl-queue.js";
import truth from "../test/fixtures/quality/truth.json";

const GOALS = { settled: 0.95, first: 0.85, precision: 0.98, format: 0.95, finder: 0.9 };
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

interface Tally {
  sites: number;
  published: number;
  firstHits: number;
  settledHits: number;
  found: number;
  formatHits: number;
  finderProbes: number;
  finderHits: number;
}
const tally = (): Tally => ({
  sites: 0,
  published: 0,
  firstHits: 0,
  settledHits: 0,
  found: 0,
  formatHits: 0,
  finderProbes: 0,
  finderHits: 0,
});

function report(label: string, t: Tally): string {
  const result = {
    first: t.firstHits / t.published,
    settled: t.settledHits / t.published,
    precision: t.found ? t.settledHits / t.found : 1,
    format: t.formatHits / t.sites,
    finder: t.finderProbes ? t.finderHits / t.finderProbes : 1,
  };
  const mark = (k: keyof typeof GOALS) =>
    `${pct(result[k]).padStart(6)} (goal ${pct(GOALS[k])}${result[k] >= GOALS[k] ? ", met" : ", NOT met"})`;
  return (
    `${label}: ${t.sites} sites, ${t.published} published addresses\n` +
    `  first-answer recall ${mark("first")}\n  settled recall      ${mark("settled")}\n  precision           ${mark("precision")}\n` +
    `  format top-1        ${mark("format")}\n  finder top-1        ${mark("finder")}`
  );
}

it("engine quality on the fixture web", async () => {
  const store = db(env.DB);
  const all = tally();
  const heldOut = tally();
  let firstPages = 0;
  let triedUrls = 0;
  const lines: string[] = [];
  for (const site of truth.sites as ((typeof truth.sites)[number] & { heldout?: boolean })[]) {
    const { domain } = site;
    await store.delete(emailSources).where(eq(emailSources.websiteUrl, domain));
    await store.delete(emails).where(eq(emails.domain, domain));
    await store.delete(people).where(eq(people.domain, domain));
    await store.delete(domains).where(eq(domains.domain, domain));
    const expected = new Set(site.addresses.map((l) => `${l}@${domain}`));

    const first = await crawlFirstPass(env, domain);
    await storeCrawl(env, { domain, pages: first.pages, status: "crawling", error: null, now: Date.now() });
    const firstRows = await emailsOfDomain(env, domain);
    await runDeepCrawl(env, { domain, done: first.done, pending: first.pending }, Date.now() + 1);
    const rows = await emailsOfDomain(env, domain);
    firstPages += first.pages.length;
    triedUrls += first.done.length;

    const firstFound = firstRows.filter((r) => expected.has(r.email)).length;
    const settledFound = rows.filter((r) => expected.has(r.email)).length;
    const wrong = rows.filter((r) => !expected.has(r.email)).map((r) => r.email);
    const missed = [...expected].filter((e) => !rows.some((r) => r.email === e));
    const format = inferPatterns(namedAddresses(rows)).shares[0]?.pattern ?? null;
    const finder = site.finder.map((p) => {
      const proposal = proposeAddress(rows, { first: p.first, last: p.last }, domain);
      return { want: `${p.local}@${domain}`, got: proposal?.email ?? null };
    });
    for (const t of site.heldout ? [all, heldOut] : [all]) {
      t.sites++;
      t.published += expected.size;
      t.firstHits += firstFound;
      t.settledHits += settledFound;
      t.found += rows.length;
      t.formatHits += format === site.format ? 1 : 0;
      t.finderProbes += finder.length;
      t.finderHits += finder.filter((f) => f.got === f.want).length;
    }
    lines.push(
      `${(site.heldout ? "* " : "  ") + domain.padEnd(24)} first ${firstFound}/${expected.size} (${first.pages.length} pages)  settled ${settledFound}/${expected.size}  ` +
        `format ${format ?? "-"}${format === site.format ? "" : ` (want ${site.format})`}  ` +
        `finder ${finder.map((f) => (f.got === f.want ? "ok" : `${f.got ?? "none"}≠${f.want}`)).join(", ")}` +
        (missed.length ? `\n${"".padEnd(28)}missed: ${missed.join(", ")}` : "") +
        (wrong.length ? `\n${"".padEnd(28)}not published: ${wrong.join(", ")}` : ""),
    );
  }
  console.log(
    `${lines.join("\n")}\n(* = held out: written after the engine changes, not tuned against)\n\n` +
      `pages read by first passes ${firstPages}, URLs tried by first passes ${triedUrls}\n` +
      `${report("all sites", all)}\n${heldOut.sites ? report("held-out sites", heldOut) : ""}`,
  );
  expect(all.published).toBeGreaterThan(0);
});
