// npm run bench:throughput — what a /v1 call costs next to a bare route, over real HTTP against
// `wrangler dev`, all routes measured side by side in one run with autocannon.
//
// Routes: `/` (the baseline: no auth, no limiter, no log), `/v1/me` (auth + limiter + log),
// `/v1/phone-validator` (auth + limiter admit/settle with a credit + log, no outbound network) and
// `/v1/domain-status` (auth + log, no limiter), plus phone-validator with a new number on every call
// (each billed: not the free 30-day repeat the fixed number becomes). Each is run at 1 and at 50 connections; every cell
// is printed with requests/s, p50 and p99 latency and its ratio to `/` at the same connection count.
// Rounds alternate the route order so a drifting machine load hurts no route more than another.
//
// It starts its own `wrangler dev` (bench/lib/dev-server.mjs) on BENCH_PORT (default 8815) with a
// throwaway state directory, a scale-plan account (no rate limits) and a large credit pack, so no
// request is refused during the run. Non-2xx answers are counted and make the run fail.
//   BENCH_SECONDS  seconds per cell and round (default 5)
//   BENCH_ROUNDS   rounds over every cell (default 2; results are summed over rounds)
//   BENCH_CONNECTIONS  comma-separated connection counts (default "1,50")
import autocannon from "autocannon";
import { devOperatorSecret, withBenchServer } from "./lib/dev-server.mjs";

process.env.BENCH_PORT ??= "8815";
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const connectionCounts = (process.env.BENCH_CONNECTIONS ?? "1,50").split(",").map(Number);

const ROUTES = [
  { name: "/", path: "/", auth: false },
  { name: "/v1/me", path: "/v1/me", auth: true },
  { name: "/v1/phone-validator", path: "/v1/phone-validator?phone=%2B33612345678", auth: true },
  { name: "/v1/domain-status", path: "/v1/domain-status?domain=gmail.com", auth: true },
  // The same endpoint with a new number on every call: each one is billed (a limiter round trip
  // with a credit reservation), where the fixed number above is a free 30-day repeat after its first call.
  { name: "phone-validator new #", path: "/v1/phone-validator", auth: true, newNumberEachCall: true },
];

// French mobile numbers +336 followed by 8 digits, a different one per call across the whole run.
let nextNumber = 10_000_000;
const newNumberPath = () => `/v1/phone-validator?phone=%2B336${String(nextNumber++ % 100_000_000).padStart(8, "0")}`;

const operatorSecret = devOperatorSecret();

function run(url, headers, connections, duration, newNumberEachCall = false) {
  const requests = newNumberEachCall ? [{ setupRequest: (req) => ({ ...req, path: newNumberPath() }) }] : undefined;
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections, duration, pipelining: 1, requests }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

await withBenchServer("throughput", { OPERATOR_SECRET: operatorSecret }, async ({ base, port, headers }) => {
  // A pack large enough that phone credits never run out during the run.
  const me = await (await fetch(`${base}/v1/me`, { headers })).json();
  const accountId = me.data?.user_id ?? me.user_id;
  const pack = await fetch(`${base}/operator/accounts/${accountId}/credit-packs`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-operator-secret": operatorSecret },
    body: JSON.stringify({ credits: 10_000_000 }),
  });
  if (!pack.ok) throw new Error(`credit pack refused (${pack.status}): ${await pack.text()} (account ${accountId})`);

  // Warm-up: every route once per connection count, briefly, so isolates and SQLite pages are warm.
  for (const r of ROUTES) await run(`${base}${r.path}`, r.auth ? headers : {}, 10, 1, r.newNumberEachCall);

  const cells = new Map(); // `${route}|${connections}` -> { requests, seconds, p50s, p99s, errors }
  for (let round = 0; round < rounds; round++) {
    for (const connections of connectionCounts) {
      const order = round % 2 ? [...ROUTES].reverse() : ROUTES;
      for (const r of order) {
        const res = await run(`${base}${r.path}`, r.auth ? headers : {}, connections, seconds, r.newNumberEachCall);
        const key = `${r.name}|${connections}`;
        const cell = cells.get(key) ?? { requests: 0, seconds: 0, p50s: [], p99s: [], bad: 0 };
        cell.requests += res.requests.total;
        cell.seconds += res.duration;
        cell.p50s.push(res.latency.p50);
        cell.p99s.push(res.latency.p99);
        cell.bad += res.non2xx + res.errors + res.timeouts;
        cells.set(key, cell);
      }
    }
  }

  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`\nwrangler dev on :${port}, ${rounds} round(s) x ${seconds} s per cell, autocannon`);
  console.log("route                   conns     req/s   ratio    p50 ms  Δp50 ms    p99 ms  non-2xx");
  let failed = false;
  for (const connections of connectionCounts) {
    const rootCell = cells.get(`/|${connections}`);
    const rootRps = rootCell.requests / rootCell.seconds;
    const rootP50 = mean(rootCell.p50s);
    for (const r of ROUTES) {
      const cell = cells.get(`${r.name}|${connections}`);
      const rps = cell.requests / cell.seconds;
      const p50 = mean(cell.p50s);
      if (cell.bad) failed = true;
      console.log(
        [
          r.name.padEnd(22),
          String(connections).padStart(6),
          rps.toFixed(0).padStart(9),
          `${(rps / rootRps).toFixed(2)}x`.padStart(7),
          p50.toFixed(2).padStart(9),
          (p50 - rootP50).toFixed(2).padStart(8),
          mean(cell.p99s).toFixed(2).padStart(9),
          String(cell.bad).padStart(8),
        ].join(" "),
      );
    }
  }
  const pv50 = cells.get("/v1/phone-validator|50");
  const root50 = cells.get("/|50");
  const pv1 = cells.get("/v1/phone-validator|1");
  const root1 = cells.get("/|1");
  if (pv50 && root50 && pv1 && root1) {
    const ratio = pv50.requests / pv50.seconds / (root50.requests / root50.seconds);
    const dp50 = mean(pv1.p50s) - mean(root1.p50s);
    console.log(`\ngoal: phone-validator >= 0.60x root at 50 connections: ${ratio.toFixed(2)}x ${ratio >= 0.6 ? "met" : "NOT met"}`);
    console.log(`goal: phone-validator p50 within 2 ms of root at 1 connection: +${dp50.toFixed(2)} ms ${dp50 <= 2 ? "met" : "NOT met"}`);
  }
  if (failed) {
    console.error("\nSome requests did not answer 2xx; the numbers above are not comparable.");
    process.exitCode = 1;
  }
});
