// npm run bench -- enrichment — enrichment latency on a warm contact index, against a bare /v1/me
// measured side by side in the same run, over real HTTP against `wrangler dev`.
//
// It starts its own `wrangler dev` on BENCH_PORT (default: a free port, never 8787) with a throwaway state
// directory, applies migrations, creates a scale-plan account (no rate limits), imports a generated
// index through POST /operator/import (BENCH_PEOPLE people over BENCH_COMPANIES companies, every
// person with a number), warms it, then runs paired rounds in alternating order. No outbound
// network is needed: every company is in the index, so nothing is fetched from a site.
//   BENCH_ROUNDS     paired rounds (default 200)
//   BENCH_PEOPLE     people in the index (default 5000)
//   BENCH_COMPANIES  companies in the index (default 500)
import { devOperatorSecret, median, p90, withBenchServer } from "./lib/dev-server.mjs";

const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const peopleCount = Number(process.env.BENCH_PEOPLE ?? 5000);
const companyCount = Number(process.env.BENCH_COMPANIES ?? 500);
const operatorSecret = devOperatorSecret();

// Synthetic but well-formed rows (reserved .test names); the bench measures lookups, not content.
const INDUSTRIES = ["Computer Software", "Internet", "Financial Services", "Restaurants", "Research"];
const SENIORITY = ["junior", "senior", "executive"];
function dataset() {
  const rows = [];
  for (let c = 0; c < companyCount; c++) {
    rows.push({
      kind: "company",
      domain: `co${c}.bench.test`,
      name: `Company ${c}`,
      industry: INDUSTRIES[c % INDUSTRIES.length],
      country: c % 3 ? "US" : "FR",
      city: c % 2 ? "Austin" : "Paris",
      keywords: [`k${c % 17}`, `k${c % 23}`],
      technologies: [`t${c % 11}`],
    });
  }
  for (let p = 0; p < peopleCount; p++) {
    const c = p % companyCount;
    rows.push({
      kind: "person",
      email: `person${p}@co${c}.bench.test`,
      first_name: `First${p}`,
      last_name: `Last${p}`,
      position: "Engineer",
      seniority: SENIORITY[p % 3],
      country: p % 4 ? "US" : "FR",
      linkedin: `https://www.linkedin.com/in/bench-person-${p}`,
      phone: `+3361234${String(p % 10000).padStart(4, "0")}`,
    });
  }
  return rows;
}

await withBenchServer("enrich", { OPERATOR_SECRET: operatorSecret }, async ({ base, port, headers }) => {
  const rows = dataset();
  const importStart = performance.now();
  const imported = await fetch(`${base}/operator/import`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Operator-Secret": operatorSecret },
    body: JSON.stringify(rows),
  });
  const report = await imported.json();
  if (imported.status !== 200 || report.rejected)
    throw new Error(`import failed: ${imported.status} ${JSON.stringify(report).slice(0, 500)}`);
  const importMs = performance.now() - importStart;

  let n = 0;
  const pick = () => {
    const p = (n++ * 7919) % peopleCount; // spread over the index
    return {
      email: `person${p}@co${p % companyCount}.bench.test`,
      domain: `co${p % companyCount}.bench.test`,
      profile: `https://www.linkedin.com/in/bench-person-${p}`,
    };
  };
  const calls = {
    "/v1/me (baseline)": () => "/v1/me",
    "/v1/enrich": () => `/v1/enrich?email=${pick().email}`,
    "/v1/enrich?enrich_mobile=true": () => `/v1/enrich?email=${pick().email}&enrich_mobile=true`,
    "/v1/combined/find": () => `/v1/combined/find?email=${pick().email}`,
    "/v1/people/find?domain": () => `/v1/people/find?domain=${pick().domain}`,
    "/v1/professional-network": () => `/v1/professional-network?url=${encodeURIComponent(pick().profile)}`,
    "/v1/enrich (unknown address)": () => `/v1/enrich?email=nobody${n++}@co1.bench.test`,
  };
  const run = async (name) => {
    const res = await fetch(`${base}${calls[name]()}`, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${body.slice(0, 300)}`);
  };
  const names = Object.keys(calls);
  for (let i = 0; i < 20; i++) for (const name of names) await run(name); // warm the isolate and D1 pages
  const t = Object.fromEntries(names.map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 ? names : [...names].reverse();
    for (const name of order) {
      const start = performance.now();
      await run(name);
      t[name].push(performance.now() - start);
    }
  }
  const baseline = median(t[names[0]]);
  console.log(
    `\nindex: ${peopleCount} people, ${companyCount} companies (imported in ${(importMs / 1000).toFixed(1)} s through POST /operator/import)`,
  );
  console.log(`${rounds} paired rounds against wrangler dev on :${port}\n`);
  for (const name of names) {
    console.log(
      `  ${name.padEnd(32)} median ${median(t[name]).toFixed(2)} ms, p90 ${p90(t[name]).toFixed(2)} ms   ratio ${(median(t[name]) / baseline).toFixed(2)}x`,
    );
  }
});
