// `npm run bench -- startup [--runs 7] [--against <git ref> [--against <git ref>]]`: the Worker's
// cold-start cost.
//
// For the current tree (and, with --against, for each git ref checked out in a temporary worktree
// that borrows this tree's node_modules) it prints:
// - the bundle: what `wrangler deploy --dry-run --outdir` writes, raw and gzip -9 (every module,
//   source maps excluded), and the entry module alone;
// - startup time as `wrangler check startup` reports it on that bundle ("Active": sampled time minus
//   idle, garbage collection included, from its CPU profile), run --runs times with the trees
//   interleaved; median, min and max per tree, and the ratio of medians;
// - the same startup measured as CPU time: the bundle's modules loaded into a fresh workerd
//   (miniflare) and imported once, counting the CPU time of workerd's threads (Linux
//   /proc/<pid>/task/*/schedstat) across the import. The profiler's figure is wall-clock time
//   sampled on one thread, so on a busy machine (other engineers' tests) it also counts the time
//   the thread waited for a core; CPU time does not, and is the figure to compare when the load
//   average is above the core count;
// - the CPU time of the first /v1 call that follows the import in the same isolate (a capability
//   call without credentials, answered 400 by authentication): the route families are built on
//   first use (src/app.ts), so this is where the work that left the startup is paid.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { root, wranglerBin } from "../scripts/lib/local.mjs";

const { values: args } = parseArgs({
  options: { runs: { type: "string", default: "7" }, against: { type: "string", multiple: true, default: [] } },
});
const runs = Number(args.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs takes a positive integer");

const work = mkdtempSync(path.join(tmpdir(), "bench-startup-"));

function run(cmd, argv, cwd) {
  const res = spawnSync(cmd, argv, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  if (res.status !== 0) throw new Error(`${cmd} ${argv.join(" ")} failed in ${cwd}:\n${res.stderr}${res.stdout}`);
  return res.stdout;
}
const wrangler = (argv, cwd) => run(process.execPath, [wranglerBin, ...argv], cwd);

/**
 * A checkout of `ref` with this tree's node_modules, hard-linked rather than symlinked (esbuild
 * follows symlinks, and the longer module paths in the bundle's comments would skew its size); a
 * ref whose lock file differs (an older release with other dependencies) gets its own `npm ci`.
 */
function worktreeOf(ref) {
  const dir = path.join(work, `ref-${ref.replace(/[^\w.-]/g, "_")}`);
  run("git", ["worktree", "add", "--detach", dir, ref], root);
  const sameLock =
    readFileSync(path.join(dir, "package-lock.json"), "utf8") ===
    readFileSync(path.join(root, "package-lock.json"), "utf8");
  if (sameLock) run("cp", ["-al", path.join(root, "node_modules"), path.join(dir, "node_modules")], root);
  else run("npm", ["ci", "--no-audit", "--no-fund"], dir);
  return dir;
}

function build(label, dir) {
  const out = path.join(work, `${label}-out`);
  const bundle = path.join(work, `${label}.bundle`);
  wrangler(["deploy", "--dry-run", "--outdir", out], dir);
  wrangler(["deploy", "--dry-run", "--outfile", bundle], dir);
  const modules = readdirSync(out, { recursive: true }).filter(
    (f) => !f.endsWith(".map") && !f.endsWith(".md") && statSync(path.join(out, f)).isFile(),
  );
  let raw = 0;
  let gzip = 0;
  for (const f of modules) {
    const bytes = readFileSync(path.join(out, f));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  const entry = readFileSync(path.join(out, "index.js"));
  return {
    label,
    dir,
    out,
    bundle,
    moduleFiles: modules,
    modules: modules.length,
    raw,
    gzip,
    entryGzip: gzipSync(entry, { level: 9 }).length,
    active: [],
    cpu: [],
    firstCall: [],
  };
}

/** wrangler's own summary (summarizeStartupProfile): sampled time minus idle, in ms. */
function activeMs(profileFile) {
  const profile = JSON.parse(readFileSync(profileFile, "utf8"));
  const names = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  let sampled = 0;
  let idle = 0;
  profile.timeDeltas.forEach((dt, i) => {
    sampled += dt;
    if (names.get(profile.samples[i]) === "(idle)") idle += dt;
  });
  return (sampled - idle) / 1000;
}

/** CPU time (ms) of the workerd processes this script started, all threads. */
function workerdCpuMs() {
  let ns = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid || !stat.includes("(workerd)")) continue;
      for (const tid of readdirSync(`/proc/${pid}/task`))
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the process or thread ended between listing and reading
    }
  }
  return ns / 1e6;
}

/**
 * Imports the built bundle's entry in a fresh workerd, then sends it one /v1 call; returns the CPU
 * time each took.
 */
async function importCpuMs(t) {
  const modules = t.moduleFiles.map((f) => ({
    type: "ESModule",
    path: path.join(t.out, f),
    contents: readFileSync(path.join(t.out, f), "utf8"),
  }));
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      name: "bench-startup",
      modulesRoot: t.out,
      compatibilityDate: "2026-10-30",
      compatibilityFlags: ["nodejs_compat"],
      modules: [
        {
          type: "ESModule",
          path: path.join(t.out, "__bench_entry.mjs"),
          contents: `export default { async fetch(request, env, ctx) {
          const worker = await import("./index.js");
          if (new URL(request.url).pathname !== "/first-call") return new Response("ok");
          return worker.default.fetch(new Request("http://bench.local/v1/domain-search?domain=example.com"), {}, ctx);
        } };`,
        },
        ...modules,
      ],
    }),
  );
  try {
    await mf.ready;
    await new Promise((r) => setTimeout(r, 200));
    const before = workerdCpuMs();
    const res = await mf.dispatchFetch("http://bench.local/");
    await res.text();
    const imported = workerdCpuMs();
    if (res.status !== 200) throw new Error(`${t.label}: importing the bundle answered ${res.status}`);
    const call = await mf.dispatchFetch("http://bench.local/first-call");
    const body = await call.text();
    if (call.status !== 400 || !body.includes("missing_credentials"))
      throw new Error(`${t.label}: the first /v1 call answered ${call.status} ${body.slice(0, 200)}`);
    return { importCpu: imported - before, firstCallCpu: workerdCpuMs() - imported };
  } finally {
    await mf.dispose();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n) => `${(n / 1000).toFixed(0)} kB`;

const trees = [];
try {
  trees.push(build("current", root));
  for (const ref of args.against) trees.push(build(ref, worktreeOf(ref)));
  for (let i = 0; i < runs; i++) {
    for (const t of i % 2 ? [...trees].reverse() : trees) {
      const profile = path.join(work, `${t.label}-${i}.cpuprofile`);
      wrangler(["check", "startup", "--worker", t.bundle, "--outfile", profile], t.dir);
      t.active.push(activeMs(profile));
      const { importCpu, firstCallCpu } = await importCpuMs(t);
      t.cpu.push(importCpu);
      t.firstCall.push(firstCallCpu);
    }
  }
  console.log(
    `\nBundle (wrangler deploy --dry-run, gzip -9) and startup (${runs} runs each, interleaved; median (min-max))\n`,
  );
  const spread = (xs) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`;
  const rows = trees.map((t) => ({
    tree: t.label,
    modules: t.modules,
    "bundle raw": kb(t.raw),
    "bundle gzip": kb(t.gzip),
    "entry gzip": kb(t.entryGzip),
    "check startup ms": spread(t.active),
    "import CPU ms": spread(t.cpu),
    "first /v1 call CPU ms": spread(t.firstCall),
  }));
  console.table(rows);
  const [cur, ...bases] = trees;
  const ratio = (key, base) => (median(cur[key]) / median(base[key])).toFixed(2);
  for (const base of bases) {
    console.log(
      `current / ${base.label}: bundle gzip ${(cur.gzip / base.gzip).toFixed(2)}x, check startup ${ratio("active", base)}x, import CPU ${ratio("cpu", base)}x, import + first /v1 call CPU ${((median(cur.cpu) + median(cur.firstCall)) / (median(base.cpu) + median(base.firstCall))).toFixed(2)}x`,
    );
  }
} finally {
  for (const t of trees) if (t.dir !== root) run("git", ["worktree", "remove", "--force", t.dir], root);
  console.log(
    `load average during the run: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} (2 cores)`,
  );
  rmSync(work, { recursive: true, force: true });
}
