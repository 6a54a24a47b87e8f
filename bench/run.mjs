// `npm run bench -- <name> [arguments]`: runs one benchmark, passing the arguments through.
// `npm run bench` alone lists them. BENCHES is the one table of benchmarks: docs/scripts.md and
// docs/performance.md name these entries, and test/scripts/bench-runner.node.test.mjs checks that
// every entry's file exists and loads, and that docs/scripts.md lists every entry.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * name -> { file, about, kind, nodeFlags?, pending?, smoke? }. `smoke` is a run at tiny sizes, to
 * see the bench still works end to end (`npm run bench -- <name> --smoke`): its arguments and the
 * environment variables the bench reads its sizes from. `kind` "node" runs the file with this Node
 * (npm scripts put Node 22 first on the PATH); "workerd" runs a *.bench.test.ts file inside workerd
 * through vitest with vitest.bench.config.ts. `pending` says who adds a file not in the tree yet.
 */
export const BENCHES = {
  agent: {
    file: "bench/agent.mjs",
    kind: "node",
    about: "a paid agent call (402, sign, pay) against the same capability through /v1",
    smoke: { env: { BENCH_ROUNDS: "3" } },
  },
  bulk: {
    file: "bench/bulk.mjs",
    kind: "node",
    about: "10,000-row bulk jobs end to end: rows/s and memory; `--kill`: the server killed mid-job",
    smoke: { env: { BENCH_SMOKE: "1" } },
  },
  cpu: {
    file: "bench/cpu.mjs",
    kind: "node",
    about: "CPU ms per request of each process, route by route (`-- <routes> [seconds] [connections]`)",
    smoke: { args: ["root"], env: { BENCH_SECONDS: "1" } },
  },
  crawl: {
    file: "bench/crawl.bench.test.ts",
    kind: "workerd",
    about: "pages/s crawled and extracted from a fixture site; finder latency warm against cold",
    smoke: { env: { BENCH_SMOKE: "1" } },
  },
  documents: {
    file: "bench/documents.bench.test.ts",
    kind: "workerd",
    about:
      "CPU ms the deep pass spends reading a linked document (PDF reader's first load, each PDF/.docx/.xlsx, 1-30-page PDFs)",
    smoke: { env: { BENCH_SMOKE: "1" } },
  },
  deliveries: {
    file: "bench/deliveries.mjs",
    kind: "node",
    about: "a /v1 call with `webhook_url` against the same call without it",
    smoke: { env: { BENCH_ROUNDS: "3" } },
  },
  enrichment: {
    file: "bench/enrichment.mjs",
    kind: "node",
    about: "enrichment latency on a warm index (5,000 people) against /v1/me",
    smoke: { env: { BENCH_PEOPLE: "50", BENCH_COMPANIES: "5", BENCH_ROUNDS: "3" } },
  },
  hot: {
    file: "bench/hot.mjs",
    kind: "node",
    about: "the paid paths (billed call, /v1/me, repeat, domain-status) next to `/`, at 50 and 1 connections",
    smoke: { env: { BENCH_SECONDS: "1", BENCH_ROUNDS: "1", BENCH_CONNECTIONS: "1" } },
  },
  "hot-ab": {
    file: "bench/hot-ab.mjs",
    kind: "node",
    about: "a billed call's CPU in two builds cell by cell in one run (BENCH_AB_BASE: build A's checkout)",
    smoke: { env: { BENCH_SECONDS: "1", BENCH_ROUNDS: "1", BENCH_PLANS: "scale" } },
  },
  "hot-admission": {
    file: "bench/hot-admission.bench.test.ts",
    kind: "workerd",
    about: "a billed call's money path in workerd: paid from a lease, admitted in batches, admitted one call at a time",
    smoke: { env: { BENCH_SMOKE: "1" } },
  },
  limits: {
    file: "bench/limiter.bench.test.ts",
    kind: "workerd",
    about: "500 concurrent requests against 50/min (exactly 50 admitted); a call with and without the limiter",
    smoke: { env: { BENCH_SMOKE: "1" } },
  },
  "mail-world": {
    file: "bench/mail-world.mjs",
    kind: "node",
    about:
      "the finder and the verifier on a fresh randomized mail world with a Reacher-speaking prober (`-- --seed S --domains 24 --gravatar 5`: the share of people with a Gravatar profile, in %)",
    smoke: { args: ["--seed", "1", "--domains", "2"] },
  },
  "mail-world-ceiling": {
    file: "bench/mail-world-ceiling.ts",
    kind: "node",
    nodeFlags: ["--import", "tsx"],
    about:
      "offline: the share of first answers any ranking can reach on mail worlds, the finder's (with and without web evidence) against the world's own shares (`-- <seeds>` or `-- --random 60`; `--gravatar 0.05` the share of people with a Gravatar profile, `--kp 8 --kc 3` the lookups per person and colleague)",
    smoke: { args: ["1", "--domains", "4"] },
  },
  mcp: {
    file: "bench/mcp.mjs",
    kind: "node",
    about: "a /v1/mcp tool call against the same /v1 call; the first MCP request against the next",
    smoke: { env: { BENCH_ROUNDS: "3" } },
  },
  money: {
    file: "bench/money.mjs",
    kind: "node",
    about:
      "random schedules against the money invariants: violations (goal 0) and the loss bound (`-- --schedules 1000`)",
    smoke: { args: ["--schedules", "5", "--seed", "1"] },
  },
  oauth: {
    file: "bench/oauth.mjs",
    kind: "node",
    about: "/v1/me with an OAuth bearer token against the same call with key + secret",
    smoke: { env: { BENCH_ROUNDS: "3" } },
  },
  profile: {
    file: "bench/profile.mjs",
    kind: "node",
    about: "where the Worker isolate's time goes on one route (V8 profiler; `-- <route>`)",
    smoke: { args: ["me", "1", "2"] },
  },
  quality: {
    file: "bench/quality.mjs",
    kind: "node",
    about: "engine quality on the fixture sites and on generated sites (`-- --seed N --sites 60 [--profile real-web]`)",
    smoke: { args: ["--seed", "1", "--sites", "2"] },
  },
  shards: {
    file: "bench/shards.mjs",
    kind: "node",
    about:
      "the same mixed load on 1 and 4 index databases, then a reshard 1 → 4 under load with a crash (`-- --domains 300 --rounds 6`)",
    smoke: { args: ["--domains", "10", "--big", "50", "--rounds", "1", "--seconds", "1", "--connections", "2"] },
  },
  scale: {
    file: "bench/scale.mjs",
    kind: "node",
    nodeFlags: ["--disable-warning=ExperimentalWarning"],
    about: "hot-path calls, imports and the repeat lookup as the index grows (`-- --sizes 1000,1000000`)",
    smoke: { args: ["--sizes", "100", "--rounds", "1", "--big", "10", "--write-rounds", "1"] },
  },
  startup: {
    file: "bench/startup.mjs",
    kind: "node",
    about: "bundle size and startup CPU of the Worker (`-- --against <git ref>` compares)",
    smoke: { args: ["--runs", "1"] },
  },
  "upload-memory": {
    file: "bench/upload-memory.mjs",
    kind: "node",
    about: "large chunked uploads, with and without credentials: answers, their times, the Worker's heap and RSS",
    // One authenticated upload just over the 50 MiB cap (the 413 is checked), two small anonymous ones
    // (their 400 is checked; a close that overtakes it is the race the script's header describes).
    smoke: {
      args: ["--uploads", "2", "--bytes", "16384", "--auth-bytes", String(51 * 1024 * 1024)],
      env: { BENCH_SMOKE: "1" },
    },
  },
  throughput: {
    file: "bench/throughput.mjs",
    kind: "node",
    about: "requests/s, p50 and p99 of /, /v1/me, phone-validator, domain-status at 1 and 50 connections",
    smoke: { env: { BENCH_SECONDS: "1", BENCH_ROUNDS: "1", BENCH_CONNECTIONS: "1" } },
  },
};

/**
 * The command that runs `name` with `args` (`--smoke`: the bench's own tiny run): [program,
 * arguments, environment variables to add].
 */
export function commandFor(name, givenArgs = []) {
  const bench = BENCHES[name];
  const smoke = givenArgs.includes("--smoke");
  if (smoke && !bench.smoke) throw new Error(`bench "${name}" has no smoke run yet`);
  const args = smoke ? (bench.smoke.args ?? []) : givenArgs;
  const env = smoke ? (bench.smoke.env ?? {}) : {};
  if (bench.kind === "workerd")
    return ["npx", ["vitest", "run", "--config", "vitest.bench.config.ts", bench.file, ...args], env];
  return [process.execPath, [...(bench.nodeFlags ?? []), bench.file, ...args], env];
}

/** Whether the bench's file is in this tree. */
export function present(name) {
  return existsSync(path.join(root, BENCHES[name].file));
}

function list(out) {
  const width = Math.max(...Object.keys(BENCHES).map((n) => n.length));
  out("Usage: npm run bench -- <name> [arguments passed to the bench]\n");
  for (const [name, bench] of Object.entries(BENCHES)) {
    const missing = present(name) ? "" : ` (not in this tree yet: ${bench.pending ?? `${bench.file} is missing`})`;
    out(`  ${name.padEnd(width)}  ${bench.about.replaceAll("`", "")}${missing}`);
  }
  out(
    "\nEach bench starts what it needs (its own `wrangler dev` on a free port, or workerd). docs/performance.md has the figures.",
  );
}

function main() {
  const [name, ...args] = process.argv.slice(2);
  if (!name || name === "--help" || name === "-h" || name === "list") {
    list(console.log);
    return;
  }
  if (!Object.hasOwn(BENCHES, name)) {
    console.error(`unknown bench "${name}".`);
    list(console.error);
    process.exit(2);
  }
  if (!present(name)) {
    console.error(
      `bench "${name}" is not in this tree yet: ${BENCHES[name].pending ?? `${BENCHES[name].file} is missing`}.`,
    );
    process.exit(1);
  }
  let command;
  try {
    command = commandFor(name, args);
  } catch (err) {
    console.error(err.message);
    process.exit(2);
  }
  const [program, argv, env] = command;
  const child = spawn(program, argv, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  // Ctrl-C reaches the child through the terminal; a signal sent to this process alone is passed on.
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
