// `npm run bench:bulk`: runs bench/bulk.bench.test.ts inside workerd and samples the resident memory of
// the workerd processes (where the queue consumer runs) every 200 ms, reporting the peak during the
// jobs (1,000 against 10,000 rows). This is the whole workerd process (every isolate, the
// simulated R2/D1/queues), an upper bound on the consumer's own footprint.
import { execFileSync, spawn } from "node:child_process";
import { root } from "../scripts/lib/local.mjs";

const samples = [];
let childPid = 0;
/** RSS of the workerd processes started by this run (descendants of its vitest), not other ones on the machine. */
function workerdRssKb() {
  try {
    const rows = execFileSync("ps", ["-eo", "pid=,ppid=,rss=,args="], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const [pid, ppid, rss, ...args] = l.trim().split(/\s+/);
        return { pid: Number(pid), ppid: Number(ppid), rss: Number(rss), args: args.join(" ") };
      });
    const mine = new Set([childPid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const r of rows) if (!mine.has(r.pid) && mine.has(r.ppid)) (mine.add(r.pid), (grew = true));
    }
    return rows.filter((r) => mine.has(r.pid) && /workerd/.test(r.args)).reduce((sum, r) => sum + r.rss, 0);
  } catch {
    return 0;
  }
}
const timer = setInterval(() => samples.push([Date.now(), workerdRssKb()]), 200);
// Extra arguments go to vitest (e.g. `npm run bench:bulk -- -t memory`).
const child = spawn(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "--config", "vitest.bench.config.ts", "bench/bulk.bench.test.ts", ...process.argv.slice(2)], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
childPid = child.pid;
let log = "";
child.stdout.on("data", (d) => {
  log += d;
  for (const line of String(d).split("\n")) if (line.includes("BENCH")) console.log(line.trim());
});
child.on("exit", (code) => {
  clearInterval(timer);
  const phases = {};
  for (const m of log.matchAll(/BENCH phase (\S+) (start|end) (\d+)/g)) (phases[m[1]] ??= {})[m[2]] = Number(m[3]);
  for (const [name, { start, end }] of Object.entries(phases)) {
    if (!start || !end) continue;
    const during = samples.filter(([t]) => t >= start && t <= end).map(([, kb]) => kb);
    const before = samples.filter(([t]) => t < start).at(-1)?.[1] ?? 0;
    if (during.length) console.log(`BENCH memory ${name}: workerd RSS peak ${(Math.max(...during) / 1024).toFixed(0)} MB (before the job ${(before / 1024).toFixed(0)} MB, ${during.length} samples)`);
  }
  process.exit(code ?? 1);
});
