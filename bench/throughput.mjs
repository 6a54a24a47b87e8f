// npm run bench -- throughput — what a /v1 call costs next to a bare route, over real HTTP against
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
import { measureSideBySide, newNumberPath } from "./lib/side-by-side.mjs";

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
  { name: "phone-validator new #", path: "/v1/phone-validator", auth: true, pathEachCall: newNumberPath },
];

const cells = await measureSideBySide("throughput", ROUTES, { seconds, rounds, connectionCounts });
const pv50 = cells.get("/v1/phone-validator|50");
const root50 = cells.get("/|50");
const pv1 = cells.get("/v1/phone-validator|1");
const root1 = cells.get("/|1");
if (pv50 && root50 && pv1 && root1) {
  const ratio = pv50.rps / root50.rps;
  const dp50 = pv1.p50 - root1.p50;
  console.log(
    `\ngoal: phone-validator >= 0.60x root at 50 connections: ${ratio.toFixed(2)}x ${ratio >= 0.6 ? "met" : "NOT met"}`,
  );
  console.log(
    `goal: phone-validator p50 within 2 ms of root at 1 connection: +${dp50.toFixed(2)} ms ${dp50 <= 2 ? "met" : "NOT met"}`,
  );
}
