// `npm test`: the typecheck (wrangler types --check, tsc, import cycles) and the vitest suite side by
// side. On a 2-core machine the suite spends much of its time waiting on workerd, so running tsc
// beside it takes ~80 s instead of ~90 s one after the other. The typecheck's output is printed
// when it ends (never interleaved with vitest's); the run fails if either fails.
import { spawn } from "node:child_process";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let typecheckOutput = "";
const typecheck = spawn(npm, ["run", "typecheck", "--silent"], { stdio: ["ignore", "pipe", "pipe"] });
typecheck.stdout.on("data", (d) => (typecheckOutput += d));
typecheck.stderr.on("data", (d) => (typecheckOutput += d));
const typecheckDone = new Promise((resolve) => typecheck.on("close", resolve));

const vitest = spawn("npx", ["vitest", "run", ...process.argv.slice(2)], { stdio: "inherit" });
const vitestCode = await new Promise((resolve) => vitest.on("close", resolve));
const typecheckCode = await typecheckDone;

const shown = typecheckOutput.split("\n").filter((line) => !line.startsWith("npm warn")).join("\n").trim();
console.log(`\n── typecheck (wrangler types --check, tsc --noEmit, check:cycles): ${typecheckCode === 0 ? "passed" : "FAILED"}`);
if (shown) console.log(shown);
process.exit(vitestCode !== 0 ? vitestCode || 1 : typecheckCode || 0);
