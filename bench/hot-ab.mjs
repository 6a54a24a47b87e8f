// npm run bench -- hot-ab — two builds of the Worker, the same billed call, cell by cell in one run:
// the CPU a billed call costs in build B (this tree) over build A (BENCH_AB_BASE, another checkout
// of the repository with its node_modules: e.g. `git worktree add /tmp/base main`; unset, this tree
// again, which measures the instrument: an A/A run should say 1.00x). Both `wrangler dev` servers
// run at once (the idle one costs nothing); each round measures `/` and every plan's billed call
// on A, B, B, A (then B, A, A, B the next round), so a machine load that drifts moves both builds
// alike. Per cell: the server's CPU ms per call (its wrangler and workerd, from /proc), counted until
// 1.5 s after the load ends (the log rows' consumer and the D1 copy run after the answers). Printed per
// plan: the median over rounds of B's CPU per call over A's (paired within the round), and each
// build's `/` CPU over its billed call's (the hot bench's "by CPU" ratio), medians over rounds.
//   BENCH_AB_BASE  build A's checkout (default: this tree)   BENCH_PLANS  (default enterprise,scale,pro-plus)
//   BENCH_SECONDS  seconds per cell (default 2)   BENCH_ROUNDS  rounds (default 6)   BENCH_CONNECTIONS (default 50)
//   BENCH_PORT  build A's port; B takes the next one.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { addBenchAccount, median, root } from "./lib/dev-server.mjs";
import { cpuOfTree } from "./lib/proc-cpu.mjs";

const baseDir = path.resolve(process.env.BENCH_AB_BASE ?? root);
const plans = (process.env.BENCH_PLANS ?? "enterprise,scale,pro-plus").split(",");
const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const portA = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : undefined;
/** After a cell: the request-log consumer's batch (up to 1 s) and the limiter's D1 copy (1 s) run. */
const SETTLE_MS = 1_500;

/** Build `dir`'s bench library: its servers run that checkout's Worker. */
const libOf = async (dir) => ({
  side: await import(pathToFileURL(path.join(dir, "bench/lib/side-by-side.mjs")).href),
  dev: await import(pathToFileURL(path.join(dir, "bench/lib/dev-server.mjs")).href),
});

/** Starts build `dir`'s server with one funded account per plan, and runs `body(server)`. */
async function withBuild(dir, port, body) {
  const { side, dev } = await libOf(dir);
  const accounts = new Map();
  const add = dev.addBenchAccount ?? addBenchAccount;
  if (port !== undefined) process.env.BENCH_PORT = String(port);
  else delete process.env.BENCH_PORT;
  return side.withFundedBenchServer(
    "hot-ab",
    async (server) => {
      for (const [, headers] of accounts) await side.fundBenchAccount(server.base, headers, server.operatorSecret);
      const cell = async (headers, route) => {
        const cpu = cpuOfTree(server.pid);
        const res = await side.load(server.base, headers, route, connections, seconds);
        if (res.non2xx || res.errors) throw new Error(`${dir}: ${res.non2xx} not 2xx, ${res.errors} errors`);
        // What the calls leave to do after their answers (log rows consumed, the D1 copy) is theirs:
        // counted before the other build's cell starts, not lost between this build's cells.
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        return (cpuOfTree(server.pid) - cpu) / Math.max(1, res.requests.total);
      };
      // Warm-up: the isolate, SQLite pages, each limiter object and lease.
      await side.load(server.base, {}, side.NAMED_ROUTES.root, 10, 1);
      for (const [, headers] of accounts) await side.load(server.base, headers, side.NAMED_ROUTES.billed, 10, 1);
      return body({ ...server, accounts, cell, routes: side.NAMED_ROUTES });
    },
    {
      prepare: (state) => {
        for (const p of plans) accounts.set(p, add(state, `bench-${p}@example.com`, p));
      },
    },
  );
}

const cpu = { A: new Map(), B: new Map() }; // build -> cell ("/" or a plan) -> CPU ms per call, per round
for (const b of ["A", "B"]) for (const k of ["/", ...plans]) cpu[b].set(k, []);

await withBuild(baseDir, portA, (a) =>
  withBuild(root, portA === undefined ? undefined : portA + 1, async (b) => {
    const builds = { A: a, B: b };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? ["B", "A", "A", "B"] : ["A", "B", "B", "A"];
      const sums = { A: new Map(), B: new Map() };
      for (const name of order) {
        const build = builds[name];
        const add = (k, ms) => sums[name].set(k, [...(sums[name].get(k) ?? []), ms]);
        add("/", await build.cell({}, build.routes.root));
        for (const plan of plans.map((_, i) => plans[(i + round) % plans.length]))
          add(plan, await build.cell(build.accounts.get(plan), build.routes.billed));
      }
      for (const name of ["A", "B"])
        for (const [k, xs] of sums[name]) cpu[name].get(k).push(xs.reduce((s, x) => s + x, 0) / xs.length);
      console.log(
        `round ${round + 1}/${rounds}: ${plans.map((p) => `${p} B/A ${(cpu.B.get(p).at(-1) / cpu.A.get(p).at(-1)).toFixed(3)}`).join(", ")}`,
      );
    }
  }),
);

const paired = (k) => median(cpu.B.get(k).map((x, i) => x / cpu.A.get(k)[i]));
const byCpu = (b, k) => median(cpu[b].get(k).map((x, i) => cpu[b].get("/")[i] / x));
console.log(
  `\nA: ${baseDir}\nB: ${root}\n${rounds} rounds x 2 cells per build, ${seconds} s per cell, ${connections} connections`,
);
console.log("cell          CPU ms/call A   B      B over A (median of rounds)   `/` over it: A   B");
for (const k of ["/", ...plans]) {
  const row = [
    k.padEnd(12),
    median(cpu.A.get(k)).toFixed(3).padStart(10),
    median(cpu.B.get(k)).toFixed(3).padStart(7),
    `${paired(k).toFixed(3)}x`.padStart(12),
  ];
  if (k !== "/") row.push(`${byCpu("A", k).toFixed(3)}x`.padStart(25), `${byCpu("B", k).toFixed(3)}x`.padStart(7));
  console.log(row.join(""));
}
