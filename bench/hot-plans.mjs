// `npm run bench -- hot --plans enterprise,scale,pro-plus`: the billed call on several plans in ONE
// run, to rank them. One `wrangler dev`, one funded account per plan. Each round measures `/`, the
// billed call of every plan (order rotated round by round), then `/` again; a plan's ratio for the
// round is its req/s over the mean of that round's two `/` cells, so a load that drifts during the
// run moves the baseline with it. Printed per plan: the median ratio over the rounds and its spread
// (lowest-highest, and the middle half), the billed call's p50 at 1 connection over `/`'s, and the
// server's CPU ms per call (wrangler dev and its workerd, from /proc: other processes not counted)
// with `/`'s CPU over it: the ratio of a CPU-bound server that the machine's other load moves much
// less than the measured one (first run, load 6-7: scale's measured ratios spanned 0.38-1.40x, its
// CPU per call 2.52 ms against pro-plus's 2.61: the same code).
// Two plans that run the same code (scale and pro-plus: paid from the isolate's lease) are the
// check: their medians should agree within their spreads, else the run says nothing about ranking.
//   BENCH_SECONDS  seconds per cell (default 2)   BENCH_ROUNDS  rounds (default 9)
//   BENCH_CONNECTIONS  connection counts (default "50,1": the ratio at the first, p50 at 1 if given)
import { addBenchAccount, median } from "./lib/dev-server.mjs";
import { cpuOfTree } from "./lib/proc-cpu.mjs";
import { fundBenchAccount, load, NAMED_ROUTES, withFundedBenchServer } from "./lib/side-by-side.mjs";

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

export async function measurePlans(plans, { seconds, rounds, connectionCounts }) {
  const accounts = new Map(); // plan -> headers
  const prepare = (state) => {
    for (const plan of plans) accounts.set(plan, addBenchAccount(state, `bench-${plan}@example.com`, plan));
  };
  return withFundedBenchServer(
    "hot-plans",
    async ({ base, port, pid, operatorSecret }) => {
      // One cell: autocannon's result and the server's CPU ms per request (wrangler and its workerd, /proc).
      const cell = async (headers, route, connections) => {
        const cpu = cpuOfTree(pid);
        const res = await load(base, headers, route, connections, seconds);
        return { res, cpu: (cpuOfTree(pid) - cpu) / Math.max(1, res.requests.total) };
      };
      for (const [, headers] of accounts) await fundBenchAccount(base, headers, operatorSecret);
      const root = { ...NAMED_ROUTES.root };
      const billed = NAMED_ROUTES.billed;
      // Warm-up: every cell briefly (isolate, SQLite pages, each limiter object and lease).
      await load(base, {}, root, 10, 1);
      for (const [, headers] of accounts) await load(base, headers, billed, 10, 1);

      const ratios = new Map(plans.map((p) => [p, []])); // plan -> ratio per round (first connection count)
      const cpus = new Map([["/", []], ...plans.map((p) => [p, []])]); // CPU ms per request per round
      const roots = [];
      const p50s = new Map(plans.map((p) => [p, []])); // plan -> billed p50 - root p50 per round (1 connection)
      const bad = new Map(plans.map((p) => [p, 0]));
      for (let round = 0; round < rounds; round++) {
        const order = plans.map((_, i) => plans[(i + round) % plans.length]);
        for (const connections of connectionCounts) {
          const { res: before, cpu: rootCpu } = await cell({}, root, connections);
          const cells = new Map();
          for (const plan of order) {
            const { res, cpu } = await cell(accounts.get(plan), billed, connections);
            bad.set(plan, bad.get(plan) + res.non2xx + res.errors + res.timeouts);
            cells.set(plan, res);
            if (connections === connectionCounts[0]) cpus.get(plan).push(cpu);
          }
          const { res: after, cpu: rootCpuAfter } = await cell({}, root, connections);
          if (connections === connectionCounts[0]) cpus.get("/").push((rootCpu + rootCpuAfter) / 2);
          const rootRps = (before.requests.total / before.duration + after.requests.total / after.duration) / 2;
          const rootP50 = (before.latency.p50 + after.latency.p50) / 2;
          for (const plan of plans) {
            const res = cells.get(plan);
            if (connections === connectionCounts[0]) ratios.get(plan).push(res.requests.total / res.duration / rootRps);
            if (connections === 1) p50s.get(plan).push(res.latency.p50 - rootP50);
          }
          if (connections === connectionCounts[0]) roots.push(rootRps);
        }
        console.log(
          `round ${round + 1}/${rounds}: ${plans.map((p) => `${p} ${ratios.get(p).at(-1).toFixed(2)}x`).join(", ")} (\`/\` ${roots.at(-1).toFixed(0)} req/s)`,
        );
      }

      const c = connectionCounts[0];
      console.log(`\nwrangler dev on :${port}, ${rounds} rounds x ${seconds} s per cell, ${c} connections, autocannon`);
      console.log(
        `\`/\`: median ${median(roots).toFixed(0)} req/s (${Math.min(...roots).toFixed(0)}-${Math.max(...roots).toFixed(0)})`,
      );
      console.log(`server CPU per \`/\`: median ${median(cpus.get("/")).toFixed(2)} ms`);
      // The server is one busy workerd thread at 50 connections: its calls/s is 1 / CPU per call, so
      // `/`'s CPU over the plan's is the ratio a machine with nothing else on it would show.
      const cpuRatios = new Map(plans.map((p) => [p, cpus.get(p).map((ms, i) => cpus.get("/")[i] / ms)]));
      console.log(
        "plan          billed x `/`: median   lowest-highest   middle half    Δp50 @1 (median)  CPU ms/call  non-2xx",
      );
      for (const plan of plans) {
        const xs = ratios.get(plan);
        const d = p50s.get(plan);
        console.log(
          [
            plan.padEnd(12),
            `${median(xs).toFixed(2)}x`.padStart(20),
            `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`.padStart(16),
            `${quantile(xs, 0.25).toFixed(2)}-${quantile(xs, 0.75).toFixed(2)}`.padStart(14),
            (d.length ? `${median(d) >= 0 ? "+" : ""}${median(d).toFixed(1)} ms` : "-").padStart(18),
            median(cpus.get(plan)).toFixed(2).padStart(12),
            `${median(cpuRatios.get(plan)).toFixed(2)}x (${Math.min(...cpuRatios.get(plan)).toFixed(2)}-${Math.max(...cpuRatios.get(plan)).toFixed(2)})`.padStart(
              21,
            ),
            String(bad.get(plan)).padStart(8),
          ].join(" "),
        );
      }
      for (const plan of plans) {
        const m = median(ratios.get(plan));
        console.log(
          `goal: billed call >= 0.70x \`/\` at ${c} connections on ${plan}: ${m.toFixed(2)}x ${m >= 0.7 ? "met" : "NOT met"}`,
        );
      }
      if ([...bad.values()].some((n) => n > 0)) {
        console.error(
          "\nSome billed calls did not answer 2xx (a plan's rate limit?): their ratios are not comparable.",
        );
        process.exitCode = 1;
      }
      return { ratios, p50s, roots, cpus, cpuRatios };
    },
    { prepare },
  );
}
