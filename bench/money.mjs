// npm run bench -- money -- --schedules 1000 [--seed S] [--concurrency C]
// Random schedules of the money fault-injection harness against the invariants of docs/billing.md,
// inside workerd (bench/money.bench.test.ts through vitest): prints the seed, the invariant
// violations (goal 0, each with the seed of its schedule) and the credits each isolate death lost.
import { spawn } from "node:child_process";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback;
};
const schedules = Number(arg("schedules", 100));
const seed = arg("seed", String(Math.floor(Math.random() * 1_000_000_000)));
const concurrency = Number(arg("concurrency", 4));
if (
  !Number.isInteger(schedules) ||
  schedules < 1 ||
  !/^\d+$/.test(seed) ||
  !Number.isInteger(concurrency) ||
  concurrency < 1
) {
  console.error("usage: npm run bench -- money -- [--schedules N] [--seed S] [--concurrency C]");
  process.exit(2);
}

const child = spawn("npx", ["vitest", "run", "--config", "vitest.bench.config.ts", "bench/money.bench.test.ts"], {
  env: { ...process.env, MONEY_SCHEDULES: String(schedules), MONEY_SEED: seed, MONEY_CONCURRENCY: String(concurrency) },
  stdio: ["ignore", "pipe", "pipe"],
});
let log = "";
const lines = (chunk) => {
  log += chunk;
  // The harness's own lines, without vitest's decoration.
  for (const m of String(chunk).matchAll(/MONEY (.*)/g)) console.log(m[1]);
};
child.stdout.on("data", lines);
child.stderr.on("data", (d) => (log += d));
const code = await new Promise((resolve) => child.on("close", resolve));
if (code !== 0 && !/invariant violations: [1-9]/.test(log)) console.error(log.split("\n").slice(-40).join("\n"));
process.exit(code ?? 1);
