// `npm run bench:smoke [names…]`: every bench of bench/run.mjs at its smoke sizes (`--smoke`), to
// see each still runs end to end; CI runs it after the test suites (.ci/run). A bench without a
// smoke entry fails the run, so a new bench cannot be left out. Benches run two at a time
// (BENCH_SMOKE_CONCURRENCY): most of a smoke run waits for its `wrangler dev` to start. Each one's
// output goes to a log file, printed when it fails; a bench still running after
// BENCH_SMOKE_TIMEOUT seconds (default 600) is stopped and fails. BENCH_SMOKE_PORT=<n> gives the
// benches of slot i the ports n + 2i and n + 2i + 1 (the shards bench runs two servers); without
// it each bench takes free ports. Exit code 1 when any bench failed.
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BENCHES, present } from "../bench/run.mjs";
import { root } from "./lib/local.mjs";

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !Object.hasOwn(BENCHES, name));
if (unknown.length) {
  console.error(`unknown bench(es): ${unknown.join(", ")}; npm run bench lists them`);
  process.exit(2);
}
const names = (asked.length ? asked : Object.keys(BENCHES)).filter(present);
const withoutSmoke = names.filter((name) => !BENCHES[name].smoke);
if (withoutSmoke.length) {
  console.error(`no smoke entry in bench/run.mjs for: ${withoutSmoke.join(", ")}`);
  process.exit(1);
}

const concurrency = Math.max(1, Number(process.env.BENCH_SMOKE_CONCURRENCY ?? 2));
const timeoutMs = Number(process.env.BENCH_SMOKE_TIMEOUT ?? 600) * 1000;
const portBase = process.env.BENCH_SMOKE_PORT ? Number(process.env.BENCH_SMOKE_PORT) : null;
const logs = mkdtempSync(path.join(tmpdir(), "bench-smoke-"));

/** Runs one bench's smoke in its own process group; resolves { name, code, seconds, log }. */
function smoke(name, slot) {
  const log = path.join(logs, `${name}.log`);
  const out = openSync(log, "w");
  const env = { ...process.env };
  delete env.BENCH_PORT;
  if (portBase !== null) env.BENCH_PORT = String(portBase + 2 * slot);
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(root, "bench", "run.mjs"), name, "--smoke"], {
    cwd: root,
    env,
    stdio: ["ignore", out, out],
    detached: true,
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
  }, timeoutMs);
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      const seconds = (Date.now() - started) / 1000;
      resolve({ name, code: timedOut ? "timeout" : (code ?? signal), seconds, log });
    });
  });
}

const started = Date.now();
const queue = [...names];
const results = [];
console.log(`bench smoke runs: ${names.length} benches, ${concurrency} at a time; logs in ${logs}`);
await Promise.all(
  Array.from({ length: Math.min(concurrency, names.length) }, async (_, slot) => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      const result = await smoke(name, slot);
      results.push(result);
      console.log(
        `  ${result.code === 0 ? "ok    " : "FAILED"} ${name.padEnd(14)} ${result.seconds.toFixed(0).padStart(4)} s${result.code === 0 ? "" : ` (exit ${result.code})`}`,
      );
    }
  }),
);
const failed = results.filter((r) => r.code !== 0);
for (const r of failed)
  console.log(`\n── ${r.name} (exit ${r.code}), ${r.log}:\n${readFileSync(r.log, "utf8").trim()}`);
console.log(
  `\nbench smoke runs: ${results.length - failed.length} of ${results.length} passed in ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
process.exit(failed.length ? 1 : 0);
