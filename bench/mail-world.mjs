// npm run bench -- mail-world [--seed S] [--domains 24] [--concurrency 4] [--gravatar PERCENT]
// The finder and the verifier on a randomized mail world (test/fixtures/mail-world): quiet company
// sites (people listed, no personal address), mail servers of several providers with behaviours
// drawn from the seed (normal, catch-all, Microsoft-365 accept-all, greylisting, refusing the
// prober; full and disabled mailboxes), and a fake prober answering in Reacher's JSON. Without
// --seed a fresh seed is drawn and printed, so each run meets a world nobody has seen. Prints finder
// top-1 (first answer and after the background retries), honesty on accept-all and refusing
// domains, verifier accuracy per truth class, probes per answer and the most checks in flight per
// mail host (bench/mail-world.bench.test.ts does the measuring inside workerd). --gravatar sets the
// share of people with a Gravatar profile for their work address (world.ts webPresence; default 5).
// MAIL_WORLD_TRACE=1 in the environment prints every check the fixture prober answers (to trace a miss).
import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";

const args = process.argv.slice(2);
const usage = "usage: npm run bench -- mail-world [--seed S] [--domains 24] [--concurrency 4] [--gravatar PERCENT]";
const known = new Set(["--seed", "--domains", "--concurrency", "--gravatar"]);
const values = {};
for (let i = 0; i < args.length; i += 2) {
  const value = args[i + 1];
  if (!known.has(args[i]) || value === undefined || !/^\d+$/.test(value)) {
    console.error(`bad option ${args[i]} ${value ?? ""}; ${usage}`);
    process.exit(2);
  }
  values[args[i].slice(2)] = Number(value);
}
const seed = values.seed ?? randomInt(100, 2 ** 31);
const domains = values.domains ?? 24;
const concurrency = values.concurrency ?? 4;
if (domains < 1 || concurrency < 1) {
  console.error("--domains and --concurrency must be at least 1");
  process.exit(2);
}
console.log(
  `mail-world bench: seed ${seed}, ${domains} domains${values.gravatar !== undefined ? `, Gravatar share ${values.gravatar}%` : ""} (replay: npm run bench -- mail-world --seed ${seed} --domains ${domains}${values.gravatar !== undefined ? ` --gravatar ${values.gravatar}` : ""})`,
);
const child = spawn("npx", ["vitest", "run", "--config", "vitest.bench.config.ts", "bench/mail-world.bench.test.ts"], {
  stdio: "inherit",
  env: {
    ...process.env,
    MAIL_WORLD_SEED: String(seed),
    MAIL_WORLD_DOMAINS: String(domains),
    MAIL_WORLD_CONCURRENCY: String(concurrency),
    ...(values.gravatar !== undefined ? { MAIL_WORLD_GRAVATAR_SHARE: String(values.gravatar / 100) } : {}),
  },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
