// npm run bench -- hot — the paths customers pay for, next to a bare route, side by side in one run:
// a billed call (/v1/phone-validator with a number never asked before, so every call
// reserves and is charged a credit and opens a 30-day window), /v1/me, the free 30-day repeat (the
// same number every time) and /v1/domain-status (auth and log, no limiter), each at 50 and at 1
// connection, as requests/s and p50 next to `/` (no auth, no limiter, no log).
//
// Goals: billed call >= 0.6x `/` at 50 connections and p50 within +2 ms of it at 1 connection;
// /v1/me >= 0.6x `/` at 50 connections. The run prints whether each is met.
//
// It starts its own `wrangler dev` on a free port (bench/lib/dev-server.mjs; BENCH_PORT overrides)
// with a throwaway state directory, a scale-plan account (no rate limits) and a large credit pack.
// `--plan <name>` gives the account another plan: pro-plus is the same path as scale (billed calls
// paid from the isolate's lease), enterprise admits every billed call through its limiter first
// (its plan has a daily limit).
//   BENCH_SECONDS  seconds per cell and round (default 5)
//   BENCH_ROUNDS   rounds over every cell (default 3; cells are summed over rounds)
//   BENCH_CONNECTIONS  comma-separated connection counts (default "50,1")
//
// `--plans a,b,c`: the billed call of several plans in one run, rounds interleaved, median and
// spread per plan (bench/hot-plans.mjs; there BENCH_SECONDS defaults to 2 and BENCH_ROUNDS to 9).
import { measurePlans } from "./hot-plans.mjs";
import { measureSideBySide, NAMED_ROUTES } from "./lib/side-by-side.mjs";

const plansAt = process.argv.indexOf("--plans");
const connectionCounts = (process.env.BENCH_CONNECTIONS ?? "50,1").split(",").map(Number);
if (plansAt > 0) {
  await measurePlans(process.argv[plansAt + 1].split(","), {
    seconds: Number(process.env.BENCH_SECONDS ?? 2),
    rounds: Number(process.env.BENCH_ROUNDS ?? 9),
    connectionCounts,
  });
  process.exit();
}
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const planAt = process.argv.indexOf("--plan");
const plan = planAt > 0 ? process.argv[planAt + 1] : undefined;

const BILLED = "billed (new number)";
const ROUTES = [
  { name: "/", ...NAMED_ROUTES.root },
  { name: BILLED, ...NAMED_ROUTES.billed },
  { name: "/v1/me", ...NAMED_ROUTES.me },
  { name: "repeat (same number)", ...NAMED_ROUTES.repeat },
  { name: "/v1/domain-status", ...NAMED_ROUTES.status },
];

const cells = await measureSideBySide("hot", ROUTES, { seconds, rounds, connectionCounts, plan });

const goal = (text, value, met) => console.log(`goal: ${text}: ${value} ${met ? "met" : "NOT met"}`);
console.log("");
const root50 = cells.get("/|50");
const root1 = cells.get("/|1");
if (root50) {
  const billed = cells.get(`${BILLED}|50`).rps / root50.rps;
  const me = cells.get("/v1/me|50").rps / root50.rps;
  goal("billed call >= 0.60x root at 50 connections", `${billed.toFixed(2)}x`, billed >= 0.6);
  goal("/v1/me >= 0.60x root at 50 connections", `${me.toFixed(2)}x`, me >= 0.6);
}
if (root1) {
  const dp50 = cells.get(`${BILLED}|1`).p50 - root1.p50;
  goal(
    "billed call p50 within +2 ms of root at 1 connection",
    `${dp50 >= 0 ? "+" : ""}${dp50.toFixed(2)} ms`,
    dp50 <= 2,
  );
}
