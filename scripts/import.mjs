// npm run import -- <file.csv|file.ndjson> [--dry-run]
// Loads people, companies and phones the operator owns into the LOCAL D1 database (the one
// `npm start` / `wrangler dev` uses). Rows are checked by the same code as POST /operator/import
// (src/import/*.ts, bundled here with esbuild) and written with `wrangler d1 execute --local`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { applyMigrations, root, wrangler } from "./lib/local.mjs";

const args = process.argv.slice(2);
const dryRun = args.includes("--dry-run");
const file = args.find((a) => !a.startsWith("--"));
if (!file) {
  console.error("usage: npm run import -- <file.csv|file.ndjson> [--dry-run]");
  process.exit(2);
}
const ext = path.extname(file).toLowerCase();
const format = ext === ".csv" ? "csv" : ext === ".ndjson" || ext === ".jsonl" ? "ndjson" : null;
if (!format) {
  console.error(`cannot tell the format of ${file}: name it .csv or .ndjson`);
  process.exit(2);
}

const work = mkdtempSync(path.join(tmpdir(), "import-"));
try {
  const bundle = path.join(work, "import-lib.mjs");
  await build({
    stdin: {
      contents:
        'export { checkFile } from "./src/import/rows.ts"; export { statementsFor, inlineStatement } from "./src/import/statements.ts"; export { buildRing, indexBindings, ownerOf, shardKeyOf } from "./src/db/shards.ts";',
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: bundle,
    logLevel: "error",
  });
  const { checkFile, statementsFor, inlineStatement, buildRing, indexBindings, ownerOf, shardKeyOf } = await import(
    pathToFileURL(bundle).href
  );

  const { rows, report } = checkFile(readFileSync(file, "utf8"), format);
  if (!dryRun && rows.length) {
    applyMigrations();
    // Each row goes to its domain's index database, routed as the Worker routes it (src/db/shards.ts);
    // INDEX_SHARDS as npm start runs it (default 4; 1 is the main database). A local reshard's layout
    // row is not read here: after one, pass INDEX_SHARDS as it left the index.
    const ring = buildRing(indexBindings(Number(process.env.INDEX_SHARDS || "4")));
    const byDatabase = Map.groupBy(statementsFor(rows, Date.now()), (s) => ownerOf(ring, shardKeyOf(s.domain)));
    for (const [binding, statements] of byDatabase) {
      const sqlFile = path.join(work, `import-${binding}.sql`);
      writeFileSync(sqlFile, `${statements.map(inlineStatement).join("\n")}\n`);
      wrangler(["d1", "execute", binding, "--local", "--file", sqlFile]);
    }
  }
  console.log(
    `${dryRun ? "checked" : "imported"} ${file}: ${report.accepted} accepted (${report.by_kind.person} people, ${report.by_kind.company} companies, ${report.by_kind.phone} phones), ${report.rejected} rejected`,
  );
  for (const e of report.errors) console.log(`  line ${e.line}: ${e.reason}`);
  if (report.rejected) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
