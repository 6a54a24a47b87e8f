// Regression guard for the engine on the real web: the generator's fixed real-web guard sites
// (test/fixtures/generator, profile "real-web"), measured through the /v1 routes as a customer meets
// them, first answer and settled (after the deep pass). Every site whose features extraction alone
// decides (app data, microdata, CJK names, messy markup, addresses in words and traps, middle
// initials, given-name-only addresses), plus the first site of each feature of the crawl (legacy
// charsets, PDFs, failing pages, localized page names, deep pages) that is not a large site: the
// other guard sites cost about 30 s more and add no feature (large sites and bot challenges are
// measured at unit level on large.test and challenged.test in crawl-web.test.ts). `npm run bench -- quality --profile real-web` measures fresh seeds.
import { describe, expect, it } from "vitest";
import {
  type Feature,
  generateSites,
  REAL_WEB_GUARD_SEEDS,
  REAL_WEB_GUARD_SITES,
} from "../fixtures/generator/index.js";
import { measureSites, realWebGoalProblems, report } from "../support/generated-quality.js";

const EXTRACTION_FEATURES = new Set<string>([
  "app-data",
  "microdata",
  "cjk",
  "messy-markup",
  "obfuscation",
  "middle-initial",
  "ja-romanized",
  "given-only",
]);
const CRAWL_FEATURES: Feature[] = ["legacy-charset", "pdf", "transient", "localized-words", "deep-pages"];
const guardSites = REAL_WEB_GUARD_SEEDS.flatMap((seed) =>
  generateSites(seed, REAL_WEB_GUARD_SITES, { profile: "real-web" }),
);
const featuresOf = (s: (typeof guardSites)[number]) => s.labels.features ?? [];
const extractionSites = guardSites.filter(
  (s) => featuresOf(s).length > 0 && featuresOf(s).every((f) => EXTRACTION_FEATURES.has(f)),
);
const crawlSites: typeof guardSites = [];
for (const feature of CRAWL_FEATURES) {
  if (crawlSites.some((s) => featuresOf(s).includes(feature))) continue;
  const site = guardSites.find((s) => featuresOf(s).includes(feature) && !featuresOf(s).includes("large-site"));
  if (site) crawlSites.push(site);
}
const sites = [...extractionSites, ...crawlSites];

describe(`real-web guard sites, the combined engine (seeds ${REAL_WEB_GUARD_SEEDS.join(", ")})`, () => {
  it("meet the real-web goals: recall overall and per feature, precision, format and finder top-1, no deliverable without SMTP", async () => {
    // The fixed seeds give sites of most features; a generator change that loses them should be seen.
    expect([...new Set(sites.flatMap(featuresOf))]).toEqual(
      expect.arrayContaining(["app-data", "microdata", "cjk", "messy-markup", "obfuscation", ...CRAWL_FEATURES]),
    );
    const measures = await measureSites(sites);
    console.log(report("real-web guard", measures));
    expect(realWebGoalProblems(measures)).toEqual([]);
  }, 120_000);
});
