// npm run bench -- profile [<route> [seconds] [connections]] — where the Worker isolate's time goes
// on one route under load: V8's sampling CPU profiler, over `wrangler dev`'s inspector, on the
// isolate that runs the Worker and its Durable Objects' code, summarised by function (share of
// samples spent in the function itself, and in it with everything it called). The whole profile
// is written to $TMPDIR/bench-profile-<route>.cpuprofile (open it in Chrome DevTools' Performance
// panel). The server is built without minification so every function keeps its name.
//   <route>  one of root, billed, repeat, status, me (default billed); [seconds] default 8;
//   [connections] default 50; BENCH_PLAN: the account's plan (default scale; enterprise admits
//   every billed call through its limiter first)
// Native work (SQLite, RPC plumbing, commits) is counted inside the JS frame that called it or as
// "(program)": `npm run bench -- cpu` gives each process's CPU per request, `perf record` on workerd names it.
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inspect } from "./lib/inspector.mjs";
import { load, NAMED_ROUTES, withFundedBenchServer } from "./lib/side-by-side.mjs";

const name = process.argv[2] ?? "billed";
const route = NAMED_ROUTES[name];
if (!route) throw new Error(`unknown route '${name}': one of ${Object.keys(NAMED_ROUTES).join(", ")}`);
const seconds = Number(process.argv[3] ?? 8);
const connections = Number(process.argv[4] ?? 50);
const SAMPLE_EVERY_US = 200;

/** Self and inclusive share of samples per function (name, file, line), largest first. */
function summarise(profile, rows) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
  const label = (n) =>
    `${n.callFrame.functionName || "(anonymous)"} ${path.basename(n.callFrame.url) || ""}:${n.callFrame.lineNumber + 1}`;
  const selfTime = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    selfTime.set(id, (selfTime.get(id) ?? 0) + dt);
    total += dt;
  });
  const self = new Map();
  const inclusive = new Map();
  for (const [id, t] of selfTime) {
    const key = label(byId.get(id));
    self.set(key, (self.get(key) ?? 0) + t);
    // A function that recurses is counted once per sample.
    const seen = new Set();
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const k = label(byId.get(at));
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + t);
    }
  }
  const top = (m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([k, t]) => `${((t / total) * 100).toFixed(1).padStart(6)}%  ${k}`);
  return { totalMs: total / 1000, self: top(self), inclusive: top(inclusive) };
}

await withFundedBenchServer(
  "profile",
  async ({ base, headers, inspectorPort }) => {
    await load(base, headers, route, connections, 2); // warm-up
    const inspector = await inspect(inspectorPort);
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval: SAMPLE_EVERY_US });
    await inspector.send("Profiler.start");
    const res = await load(base, headers, route, connections, seconds);
    const { result } = await inspector.send("Profiler.stop");
    // A profile of failed requests or of none describes nothing: the bench fails instead.
    if (!res.requests.total || res.non2xx || res.errors)
      throw new Error(`${name}: ${res.requests.total} requests, ${res.non2xx} not 2xx, ${res.errors} errors`);
    if (!result?.profile?.samples?.length) throw new Error("the profiler returned no samples");
    inspector.close();
    const file = path.join(tmpdir(), `bench-profile-${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(result.profile));
    const { totalMs, self, inclusive } = summarise(result.profile, 40);
    const perRequest = totalMs / res.requests.total;
    console.log(
      `\n${name}: ${res.requests.total} requests in ${seconds} s at ${connections} connections; ${totalMs.toFixed(0)} ms profiled (idle included), ${perRequest.toFixed(2)} ms per request: 1% is ${(perRequest * 10).toFixed(1)} µs per request`,
    );
    console.log(`profile: ${file}\n\nself time:\n${self.join("\n")}\n\nwith callees:\n${inclusive.join("\n")}`);
  },
  { devFlags: ["--minify=false"], plan: process.env.BENCH_PLAN || undefined },
);
