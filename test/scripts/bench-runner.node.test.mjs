// `npm run bench -- <name>` (bench/run.mjs) and the one table of scripts (docs/scripts.md).
// Nothing runs the benches in `npm test`, so a refactor could break one silently: every bench's
// file must exist and its imports must resolve to real exports (esbuild bundles each, without
// running it), and every file under bench/ must be reachable from the runner's table.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { BENCHES, commandFor, present } from "../../bench/run.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (file) => readFileSync(path.join(root, file), "utf8");

describe("the bench runner", () => {
  it("has a file for every bench, except one whose entry says who adds it", () => {
    for (const [name, bench] of Object.entries(BENCHES)) {
      assert.ok(present(name) || bench.pending, `${name}: ${bench.file} is missing`);
      assert.match(bench.about, /\S/, name);
    }
  });

  it("loads every bench: each import resolves and names a real export (bundled, not run)", async () => {
    const entryPoints = Object.keys(BENCHES)
      .filter(present)
      .map((name) => path.join(root, BENCHES[name].file));
    // Packages stay external: what is checked is our own modules (bench/, scripts/, src/) and their exports.
    const result = await esbuild.build({
      entryPoints,
      bundle: true,
      write: false,
      platform: "node",
      format: "esm",
      packages: "external",
      outdir: "/tmp/bench-check",
      logLevel: "silent",
    });
    assert.deepEqual(result.errors, []);
  });

  it("reaches every file under bench/ from its table (directly, or run by a bench in it)", () => {
    const files = readdirSync(path.join(root, "bench")).filter((f) => /\.(mjs|ts)$/.test(f) && f !== "run.mjs");
    const listed = Object.values(BENCHES).map((b) => b.file);
    const sources = listed
      .filter((f) => f.endsWith(".mjs"))
      .map((f) => {
        try {
          return read(f);
        } catch {
          return "";
        }
      })
      .join("\n");
    const unreached = files.filter((f) => !listed.includes(`bench/${f}`) && !sources.includes(f));
    assert.deepEqual(unreached, [], "add these to BENCHES in bench/run.mjs, or run them from a bench that is");
  });

  it("passes the arguments after the name through to the bench", () => {
    const [program, args] = commandFor("quality", ["--seed", "7"]);
    assert.equal(program, process.execPath);
    assert.deepEqual(args, ["bench/quality.mjs", "--seed", "7"]);
    assert.deepEqual(commandFor("limits", ["-t", "exact"])[1], [
      "vitest",
      "run",
      "--config",
      "vitest.bench.config.ts",
      "bench/limiter.bench.test.ts",
      "-t",
      "exact",
    ]);
    assert.deepEqual(commandFor("scale", ["--sizes", "10"])[1], [
      "--disable-warning=ExperimentalWarning",
      "bench/scale.mjs",
      "--sizes",
      "10",
    ]);
  });

  it("has a smoke run for every bench (npm run bench:smoke runs them all in CI)", () => {
    assert.deepEqual(
      Object.keys(BENCHES).filter((name) => !BENCHES[name].smoke),
      [],
    );
  });

  it("runs a bench's own tiny arguments for --smoke, and refuses --smoke for a bench without them", () => {
    assert.deepEqual(commandFor("scale", ["--smoke"])[1], [
      "--disable-warning=ExperimentalWarning",
      "bench/scale.mjs",
      ...BENCHES.scale.smoke.args,
    ]);
    assert.deepEqual(commandFor("hot", ["--smoke"])[2], BENCHES.hot.smoke.env);
    const without = Object.keys(BENCHES).find((name) => !BENCHES[name].smoke);
    if (without) assert.throws(() => commandFor(without, ["--smoke"]), /has no smoke run yet/);
  });
});

describe("docs/scripts.md: every script in one table", () => {
  const rows = read("docs/scripts.md")
    .split("\n")
    .map((line) => line.match(/^\| `npm (?:run )?([\w:-]+)(?: -- ([\w-]+))?` \| (.*) \|$/))
    .filter(Boolean);

  it("lists exactly the scripts of package.json", () => {
    const scripts = Object.keys(JSON.parse(read("package.json")).scripts).sort();
    const documented = rows.filter((m) => !m[2]).map((m) => m[1]);
    assert.equal(new Set(documented).size, documented.length, "a script is listed twice");
    assert.deepEqual([...documented].sort(), scripts);
  });

  it("lists exactly the benches of bench/run.mjs, each with the runner's own description", () => {
    const benches = rows.filter((m) => m[1] === "bench" && m[2]);
    assert.deepEqual(benches.map((m) => m[2]).sort(), Object.keys(BENCHES).sort());
    for (const [, , name, about] of benches) assert.equal(about, BENCHES[name].about, `docs/scripts.md row of ${name}`);
  });
});
