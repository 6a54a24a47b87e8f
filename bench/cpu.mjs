// npm run bench -- cpu [<routes> [seconds] [connections]] — CPU milliseconds per request, per
// process, route by route: where a route's cost goes when `wrangler dev` serves it (the Worker's
// workerd process, which also runs its Durable Objects and local D1; wrangler's proxy process;
// node). Reads each process's utime + stime from /proc (Linux) before and after an autocannon run,
// so it counts native work (SQLite commits, RPC plumbing) that a V8 profile does not see.
//   <routes>  comma-separated, from: root, billed, repeat, status, me (default: all, root first)
//   BENCH_SECONDS / [seconds]  seconds per route (default 6); [connections] default 50
// Requests/s per route are printed too; ratios between routes belong to `npm run bench -- hot` (same server,
// alternating rounds), this one says which process pays.
import { cpuByProcess } from "./lib/proc-cpu.mjs";
import { load, NAMED_ROUTES as ROUTES, withFundedBenchServer } from "./lib/side-by-side.mjs";

const names = (process.argv[2] ?? Object.keys(ROUTES).join(",")).split(",");
for (const n of names)
  if (!ROUTES[n]) throw new Error(`unknown route '${n}': one of ${Object.keys(ROUTES).join(", ")}`);
const seconds = Number(process.argv[3] ?? process.env.BENCH_SECONDS ?? 6);
const connections = Number(process.argv[4] ?? 50);
await withFundedBenchServer("cpu", async ({ base, headers }) => {
  for (const n of names) await load(base, headers, ROUTES[n], connections, 2); // warm-up
  console.log(`\nCPU ms per request at ${connections} connections, ${seconds} s per route (wrangler dev, /proc)`);
  for (const n of names) {
    const before = cpuByProcess();
    const res = await load(base, headers, ROUTES[n], connections, seconds);
    // Work the route leaves behind (log batches, the limiter's D1 copy) is counted with it.
    await new Promise((r) => setTimeout(r, 1_500));
    const after = cpuByProcess();
    const parts = Object.entries(after)
      .map(([p, ms]) => [p, (ms - (before[p] ?? 0)) / res.requests.total])
      .filter(([, ms]) => ms > 0.02);
    const total = parts.reduce((sum, [, ms]) => sum + ms, 0);
    console.log(
      `${n.padEnd(7)} ${res.requests.average.toFixed(0).padStart(6)} req/s  ${total.toFixed(2)} ms/req  ${parts.map(([p, ms]) => `${p}=${ms.toFixed(2)}`).join("  ")}`,
    );
    if (res.non2xx) console.log(`  ${res.non2xx} answers were not 2xx`);
  }
});
