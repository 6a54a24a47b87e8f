// `npm run bench:startup [-- --runs 7] [-- --against <git ref>]`: the Worker's cold-start cost.
//
// For the current tree (and, with --against, for a git ref checked out in a temporary worktree that
// borrows this tree's node_modules) it prints:
// - the bundle: what `wrangler deploy --dry-run --outdir` writes, raw and gzip -9 (every module,
//   source maps excluded), and the entry module alone;
// - startup CPU: `wrangler check startup` on that bundle, run --runs times (trees interleaved so
//   machine noise hits both alike), as wrangler computes "Active" (sampled time minus idle,
//   garbage collection included) from the CPU profile. Median, min and max per tree, and the ratio.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { root, wranglerBin } from "../scripts/lib/local.mjs";

const { values: args } = parseArgs({
  options: { runs: { type: "string", default: "7" }, against: { type: "string" } },
});
const runs = Number(args.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs takes a positive integer");

const work = mkdtempSync(path.join(tmpdir(), "bench-startup-"));

function run(cmd, argv, cwd) {
  const res = spawnSync(cmd, argv, { cwd, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" } });
  if (res.status !== 0) throw new Error(`${cmd} ${argv.join(" ")} failed in ${cwd}:\n${res.stderr}${res.stdout}`);
  return res.stdout;
}
const wrangler = (argv, cwd) => run(process.execPath, [wranglerBin, ...argv], cwd);

/**
 * A checkout of `ref` with this tree's node_modules (the lock file rarely differs), hard-linked
 * rather than symlinked: esbuild follows symlinks, and the longer module paths in the bundle's
 * comments would skew its size.
 */
function worktreeOf(ref) {
  const dir = path.join(work, `ref-${ref.replace(/[^\w.-]/g, "_")}`);
  run("git", ["worktree", "add", "--detach", dir, ref], root);
  run("cp", ["-al", path.join(root, "node_modules"), path.join(dir, "node_modules")], root);
  return dir;
}

function build(label, dir) {
  const out = path.join(work, `${label}-out`);
  const bundle = path.join(work, `${label}.bundle`);
  wrangler(["deploy", "--dry-run", "--outdir", out], dir);
  wrangler(["deploy", "--dry-run", "--outfile", bundle], dir);
  const modules = readdirSync(out, { recursive: true }).filter((f) => !f.endsWith(".map") && !f.endsWith(".md") && statSync(path.join(out, f)).isFile());
  let raw = 0;
  let gzip = 0;
  for (const f of modules) {
    const bytes = readFileSync(path.join(out, f));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  const entry = readFileSync(path.join(out, "index.js"));
  return { label, dir, bundle, modules: modules.length, raw, gzip, entryGzip: gzipSync(entry, { level: 9 }).length, active: [] };
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n) => `${(n / 1000).toFixed(0)} kB`;

const trees = [];
try {
  trees.push(build("current", root));
  if (args.against) trees.push(build(args.against, worktreeOf(args.against)));
  for (let i = 0; i < runs; i++) {
    for (const t of i % 2 ? [...trees].reverse() : trees) {
      const profile = path.join(work, `${t.label}-${i}.cpuprofile`);
      wrangler(["check", "startup", "--worker", t.bundle, "--outfile", profile], t.dir);
      t.active.push(activeMs(profile));
    }
  }
  console.log(`\nStartup (wrangler check startup, ${runs} runs each, interleaved) and bundle (wrangler deploy --dry-run, gzip -9)\n`);
  const rows = trees.map((t) => ({
    tree: t.label,
    modules: t.modules,
    "bundle raw": kb(t.raw),
    "bundle gzip": kb(t.gzip),
    "entry gzip": kb(t.entryGzip),
    "startup ms (median)": median(t.active).toFixed(1),
    "min-max": `${Math.min(...t.active).toFixed(1)}-${Math.max(...t.active).toFixed(1)}`,
  }));
  console.table(rows);
  if (trees.length === 2) {
    const [cur, base] = trees;
    console.log(
      `current / ${base.label}: bundle gzip ${(cur.gzip / base.gzip).toFixed(2)}x, startup ${(median(cur.active) / median(base.active)).toFixed(2)}x`,
    );
  }
} finally {
  for (const t of trees) if (t.dir !== root) run("git", ["worktree", "remove", "--force", t.dir], root);
  rmSync(work, { recursive: true, force: true });
}
