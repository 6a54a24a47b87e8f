// `npm run bench:bulk`: runs bench/bulk.bench.test.ts inside workerd and samples the resident memory of
// the workerd processes (where the queue consumer runs) every 200 ms, reporting the peak during the
// 1,000-row and the 10,000-row finder jobs. This is the whole workerd process (every isolate, the
// simulated R2/D1/queues), an upper bound on the consumer's own footprint.
import { execFileSync, spawn } from "node:child_process";
import { root } from "../scripts/lib/local.mjs";

const samples = [];
function workerdRssKb() {
  try {
    const out = execFileSync("ps", ["-eo", "rss,args"], { encoding: "utf8" });
    return out
      .split("\n")
      .filter((l) => /workerd/.test(l) && !/ps -eo/.test(l))
      .reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[0] || 0), 0);
  } catch {
    return 0;
  }
}
const timer = setInterval(() => samples.push([Date.now(), workerdRssKb()]), 200);
const child = spawn(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "--config", "vitest.bench.config.ts", "bench/bulk.bench.test.ts"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
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
