// npm run bench -- quality [--seed N] [--sites 60] [--concurrency 1] [--profile classic|real-web|wider-web]
// Engine quality in one run: the hand-written fixture web (bench/quality.bench.test.ts, truth.json)
// and N randomized sites from one seed (bench/generated-sites.bench.test.ts). Without --seed a fresh
// seed is drawn and printed first, so each run meets sites nobody has seen; pass it back to replay.
// --profile real-web draws the generator's real-web sites (app-rendered pages, microdata, legacy
// charsets, CJK names, PDFs, large and flaky sites, messy markup, addresses in words) and adds a
// per-feature table to the report.
import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";

const PROFILES = ["classic", "real-web", "wider-web"];
const args = process.argv.slice(2);
const usage =
  "usage: npm run bench -- quality [--seed N] [--sites 60] [--concurrency 1] [--profile classic|real-web|wider-web]";
function flag(name, fallback) {
  const i = args.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = args[i + 1];
  if (value === undefined || !/^\d+$/.test(value)) {
    console.error(`--${name} needs a non-negative integer (got ${value ?? "nothing"})`);
    process.exit(2);
  }
  return Number(value);
}
const known = new Set(["--seed", "--sites", "--concurrency", "--profile"]);
for (let i = 0; i < args.length; i += 2) {
  if (!known.has(args[i])) {
    console.error(`unknown option ${args[i]}; ${usage}`);
    process.exit(2);
  }
}
const profileAt = args.indexOf("--profile");
const profile = profileAt === -1 ? "classic" : args[profileAt + 1];
if (!PROFILES.includes(profile)) {
  console.error(`--profile needs one of ${PROFILES.join(", ")} (got ${profile ?? "nothing"})`);
  process.exit(2);
}
const seed = flag("seed", randomInt(0, 2 ** 31));
const sites = flag("sites", 60);
const concurrency = flag("concurrency", 1);
if (sites < 1 || concurrency < 1) {
  console.error("--sites and --concurrency must be at least 1");
  process.exit(2);
}
const replay = `npm run bench -- quality --seed ${seed} --sites ${sites}${profile === "classic" ? "" : ` --profile ${profile}`}`;
console.log(`quality bench: seed ${seed}, ${sites} generated sites, profile ${profile} (replay: ${replay})`);

const child = spawn(
  "npx",
  [
    "vitest",
    "run",
    "--config",
    "vitest.bench.config.ts",
    "bench/quality.bench.test.ts",
    "bench/generated-sites.bench.test.ts",
  ],
  {
    stdio: "inherit",
    env: {
      ...process.env,
      QUALITY_SEED: String(seed),
      QUALITY_SITES: String(sites),
      QUALITY_CONCURRENCY: String(concurrency),
      QUALITY_PROFILE: profile,
    },
  },
);
child.on("close", (code) => {
  console.log(`quality bench: seed ${seed}, profile ${profile} (replay: ${replay})`);
  process.exit(code ?? 1);
});
