// `npm test`: the typecheck (wrangler types --check, tsc, check:startup), Biome's lint and format check
// (import cycles included), the node-side checks of the local scripts (`npm run test:scripts`: seed
// progress, npm start offline) and the vitest suite side by side. On a 2-core machine the suite
// spends much of its time waiting on workerd, so running the others beside it costs little. Their
// output is printed when they end (never interleaved with vitest's); the run fails if any fails.
// Arguments go to vitest, and skip the script checks.
//
// The typecheck and the lint run at the lowest CPU priority: the suite is the longest part, and each
// second they took from it early (its start, when every runtime loads the Worker) was a second more
// at its end; at low priority they use the time the suite spends waiting (timers, queues, fixtures).
// The script checks keep the normal priority: they start `wrangler dev` and wait for it to answer.
import { spawn } from "node:child_process";
import { constants, setPriority } from "node:os";
import { fileURLToPath } from "node:url";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Starts `npm run <script>`, its output kept; at low priority its processes inherit it (npm starts them later). */
function sideCheck(script, { lowPriority }) {
  const child = spawn(npm, ["run", script, "--silent"], { stdio: ["ignore", "pipe", "pipe"] });
  try {
    if (lowPriority) setPriority(child.pid, constants.priority.PRIORITY_LOW);
  } catch {
    // Not allowed here: it runs at the normal priority.
  }
  return child;
}

let typecheckOutput = "";
const typecheck = sideCheck("typecheck", { lowPriority: true });
typecheck.stdout.on("data", (d) => (typecheckOutput += d));
typecheck.stderr.on("data", (d) => (typecheckOutput += d));
const typecheckDone = new Promise((resolve) => typecheck.on("close", resolve));

let scriptsOutput = "";
const runScripts = process.argv.length <= 2;
const scripts = runScripts ? sideCheck("test:scripts", { lowPriority: false }) : null;
scripts?.stdout.on("data", (d) => (scriptsOutput += d));
scripts?.stderr.on("data", (d) => (scriptsOutput += d));
const scriptsDone = scripts ? new Promise((resolve) => scripts.on("close", resolve)) : Promise.resolve(0);

// Biome's check (format and lint) takes a few seconds; its output is kept like the typecheck's.
let lintOutput = "";
const lint = sideCheck("lint", { lowPriority: true });
lint.stdout.on("data", (d) => (lintOutput += d));
lint.stderr.on("data", (d) => (lintOutput += d));
const lintDone = new Promise((resolve) => lint.on("close", resolve));

// vitest's own entry under this node, not `npx vitest`: npx (npm's CLI) took 0.8-1.2 s to start it,
// on the path of the longest part.
const vitestEntry = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));
const vitest = spawn(process.execPath, [vitestEntry, "run", ...process.argv.slice(2)], { stdio: "inherit" });
const vitestCode = await new Promise((resolve) => vitest.on("close", resolve));
const typecheckCode = await typecheckDone;
const scriptsCode = await scriptsDone;
const lintCode = await lintDone;

const shown = typecheckOutput
  .split("\n")
  .filter((line) => !line.startsWith("npm warn"))
  .join("\n")
  .trim();
console.log(
  `\n── typecheck (wrangler types --check, tsc --noEmit, check:startup): ${typecheckCode === 0 ? "passed" : "FAILED"}`,
);
if (shown) console.log(shown);
if (runScripts) {
  const summary = scriptsOutput
    .split("\n")
    .filter((l) => /^# (tests|pass|fail) /.test(l))
    .join(", ");
  console.log(`\n── local scripts (npm run test:scripts): ${scriptsCode === 0 ? "passed" : "FAILED"} (${summary})`);
  if (scriptsCode !== 0)
    console.log(
      scriptsOutput
        .split("\n")
        .filter((l) => !l.startsWith("npm warn"))
        .join("\n")
        .trim(),
    );
}
console.log(
  `\n── lint, format and import cycles (npm run lint: biome ci): ${lintCode === 0 ? "passed" : "FAILED (npm run format fixes the formatting)"}`,
);
if (lintCode !== 0)
  console.log(
    lintOutput
      .split("\n")
      .filter((l) => !l.startsWith("npm warn"))
      .join("\n")
      .trim(),
  );
process.exit(vitestCode !== 0 ? vitestCode || 1 : typecheckCode || scriptsCode || lintCode || 0);
