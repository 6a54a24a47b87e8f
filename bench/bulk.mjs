// `npm run bench -- bulk`: runs bench/bulk.bench.test.ts inside workerd and reports, per job (1,000
// against 10,000 rows), two memory figures:
//  - the V8 heap of the isolate the queue consumer runs in (read over the inspector protocol:
//    used size after a forced GC before and after the job, and the peak sampled every 250 ms);
//    this is the consumer's own footprint, and what "flat" is judged on;
//  - the resident memory of this run's workerd processes (every isolate plus the simulated
//    R2/D1/queues and their SQLite files), sampled every 200 ms: an upper bound.
// The inspector listens on BENCH_INSPECT_PORT (default: a free port).
// `npm run bench -- bulk --kill` runs the crash bench instead (bench/bulk-kill.mjs).
import { execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { root } from "../scripts/lib/local.mjs";

if (process.argv.includes("--kill")) {
  await import("./bulk-kill.mjs");
  process.exit(process.exitCode ?? 0);
}

const WebSocket = createRequire(import.meta.url)("ws");
// A free port unless one is given: a fixed default would meet another inspector on a shared machine.
const freePort = () =>
  new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
const inspectPort = Number(process.env.BENCH_INSPECT_PORT ?? (await freePort()));

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
      for (const r of rows) {
        if (mine.has(r.pid) || !mine.has(r.ppid)) continue;
        mine.add(r.pid);
        grew = true;
      }
    }
    return rows.filter((r) => mine.has(r.pid) && /workerd/.test(r.args)).reduce((sum, r) => sum + r.rss, 0);
  } catch {
    return 0;
  }
}
const timer = setInterval(() => samples.push([Date.now(), workerdRssKb()]), 200);
// Extra arguments go to vitest (e.g. `npm run bench -- bulk -t memory`).
const child = spawn(
  process.execPath,
  [
    "node_modules/vitest/vitest.mjs",
    "run",
    "--config",
    "vitest.bench.config.ts",
    "bench/bulk.bench.test.ts",
    `--inspect=127.0.0.1:${inspectPort}`,
    "--no-file-parallelism",
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
);
childPid = child.pid;

/** The consumer's isolate (the vitest runner worker, where the queue handler and the job objects run) over CDP. */
const heap = { socket: null, id: 0, pending: new Map(), peak: 0, timer: null, phases: {}, chain: Promise.resolve() };
const cdp = (method, params = {}) =>
  new Promise((resolve) => {
    const id = ++heap.id;
    heap.pending.set(id, resolve);
    heap.socket.send(JSON.stringify({ id, method, params }));
  });
async function connectInspector() {
  const targets = await (await fetch(`http://127.0.0.1:${inspectPort}/json`)).json();
  const runner = targets.find((t) => /vitest-plugin-runner/.test(t.title ?? ""));
  heap.socket = new WebSocket(runner.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    heap.socket.on("open", resolve);
    heap.socket.on("error", reject);
  });
  heap.socket.on("message", (m) => {
    const d = JSON.parse(m);
    if (!d.id || !heap.pending.has(d.id)) return;
    heap.pending.get(d.id)(d.result);
    heap.pending.delete(d.id);
  });
}
async function usedAfterGc() {
  await cdp("HeapProfiler.collectGarbage");
  return (await cdp("Runtime.getHeapUsage")).usedSize;
}
const mb = (bytes) => (bytes / 1048576).toFixed(1);
const signedMb = (bytes) => `${bytes >= 0 ? "+" : ""}${mb(bytes)}`;
function onPhase(name, edge) {
  heap.chain = heap.chain
    .then(async () => {
      if (!heap.socket) await connectInspector();
      if (edge === "start") {
        heap.phases[name] = { before: await usedAfterGc() };
        heap.peak = 0;
        heap.timer = setInterval(
          () => cdp("Runtime.getHeapUsage").then((u) => (heap.peak = Math.max(heap.peak, u.usedSize))),
          250,
        );
      } else {
        clearInterval(heap.timer);
        const p = heap.phases[name];
        p.after = await usedAfterGc();
        p.peak = Math.max(heap.peak, p.after);
      }
    })
    .catch((err) => console.error("inspector:", err.message));
}

let log = "";
child.stdout.on("data", (d) => {
  log += d;
  for (const line of String(d).split("\n")) {
    if (line.includes("BENCH")) console.log(line.trim());
    const phase = /BENCH phase (\S+) (start|end) /.exec(line);
    if (phase) onPhase(phase[1], phase[2]);
  }
});
child.on("exit", async (code) => {
  clearInterval(timer);
  await heap.chain;
  for (const [name, p] of Object.entries(heap.phases)) {
    if (p.after !== undefined)
      console.log(
        `BENCH heap ${name}: consumer isolate V8 heap ${mb(p.before)} MB before, peak ${mb(p.peak)} MB (${signedMb(p.peak - p.before)}), ${mb(p.after)} MB after GC (${signedMb(p.after - p.before)})`,
      );
  }
  heap.socket?.close();
  const phases = {};
  for (const [, name, edge, at] of log.matchAll(/BENCH phase (\S+) (start|end) (\d+)/g)) {
    phases[name] ??= {};
    phases[name][edge] = Number(at);
  }
  for (const [name, { start, end }] of Object.entries(phases)) {
    if (!start || !end) continue;
    const during = samples.filter(([t]) => t >= start && t <= end).map(([, kb]) => kb);
    const before = samples.filter(([t]) => t < start).at(-1)?.[1] ?? 0;
    if (during.length)
      console.log(
        `BENCH memory ${name}: workerd RSS peak ${(Math.max(...during) / 1024).toFixed(0)} MB (before the job ${(before / 1024).toFixed(0)} MB, ${during.length} samples)`,
      );
  }
  process.exit(code ?? 1);
});
