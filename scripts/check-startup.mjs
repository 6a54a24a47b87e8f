// `npm run check:startup` (part of `npm run typecheck`): fails when work comes back into the Worker's
// startup. What src/index.ts imports statically (and what that imports, and so on) is evaluated
// whenever an isolate starts; everything else is evaluated on first use. From the build's metafile:
// - the payment stack (mppx, viem, ox) is not in the entry module at all: it belongs in
//   src/vendor/payments.mjs, loaded on first use (src/payment-vendor.ts); a value import of one of
//   them anywhere under src/ (a type import is fine) would bundle it into the entry module again;
// - no module that the Worker imports lazily somewhere (`await import(...)`: the route families of
//   src/app.ts, the queue consumers of src/index.ts, ...) is also reached by static imports from
//   src/index.ts, which would evaluate it at startup and make the lazy import pointless;
// - no module of a route family's folder, and none of the heavy libraries below, is reached by
//   static imports from src/index.ts;
// - the PDF reader (unpdf, PDF.js) is not in the entry module: it is src/vendor/pdf.mjs, loaded by
//   src/pdf-vendor.ts, which only src/engine/web/pdf-text.ts imports, and that module only lazily
//   (the deep crawl, when it holds a PDF): no /v1 route evaluates it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { root, wranglerBin } from "./lib/local.mjs";

const ENTRY = "src/index.ts";
const PAYMENT_PACKAGES = /node_modules\/(mppx|viem|ox|abitype|@noble\/curves)\//;
const PDF_PACKAGES = /node_modules\/(unpdf|pdfjs-dist)\//;
const PDF_READER = "src/engine/web/pdf-text.ts";
const PDF_LOADER = "src/pdf-vendor.ts";
/** Libraries whose evaluation cost most of the startup before the route families were made lazy. */
const NOT_AT_STARTUP =
  /node_modules\/(zod|@hono\/zod-openapi|@asteasolutions\/zod-to-openapi|drizzle-orm|@cloudflare\/workers-oauth-provider|@modelcontextprotocol\/sdk|@sindresorhus\/transliterate|libphonenumber-js|tldts|disposable-email-domains-js)\//;

/** Folders of the route families (src/app.ts), built on the first request that needs them. */
const FAMILY_FOLDERS =
  /^src\/(account\/routes|bulk\/routes|leads\/routes|oauth\/routes|operator|capabilities|mcp|dashboard)\//;

/** The modules `from` reaches through static imports, each with the module that imported it first. */
function staticGraph(inputs, from) {
  const importer = new Map([[from, null]]);
  const queue = [from];
  while (queue.length) {
    const file = queue.shift();
    for (const imp of inputs[file]?.imports ?? []) {
      if (imp.kind !== "import-statement" || imp.external || importer.has(imp.path)) continue;
      importer.set(imp.path, file);
      queue.push(imp.path);
    }
  }
  return importer;
}

function chain(importer, file) {
  const files = [];
  for (let f = file; f; f = importer.get(f)) files.unshift(f);
  return files.join(" -> ");
}

export function startupProblems(meta) {
  const problems = [];
  const entry = Object.entries(meta.outputs).find(([file]) => file.endsWith("index.js"))?.[1];
  if (!entry) throw new Error("no index.js in the build's metafile");
  const leaked = Object.keys(entry.inputs).filter((input) => PAYMENT_PACKAGES.test(input));
  if (leaked.length) {
    const packages = [...new Set(leaked.map((i) => PAYMENT_PACKAGES.exec(i)[1]))].join(", ");
    problems.push(
      `the entry module bundles ${leaked.length} files of ${packages}; import their values through src/payment-vendor.ts (type imports are fine)`,
    );
  }

  if (Object.keys(entry.inputs).some((input) => PDF_PACKAGES.test(input))) {
    problems.push(`the entry module bundles the PDF reader; import it through ${PDF_LOADER} (src/vendor/pdf.mjs)`);
  }
  for (const [file, input] of Object.entries(meta.inputs)) {
    for (const imp of input.imports ?? []) {
      if (imp.path === PDF_READER && imp.kind !== "dynamic-import")
        problems.push(
          `${file} imports ${PDF_READER} statically; the PDF reader is loaded only lazily, by the deep crawl`,
        );
      if (imp.path === PDF_LOADER && file !== PDF_READER)
        problems.push(`${file} imports ${PDF_LOADER}; only ${PDF_READER} may load the PDF reader`);
      if (/vendor\/pdf\.mjs$/.test(imp.path) && file !== PDF_LOADER)
        problems.push(`${file} imports vendor/pdf.mjs; only ${PDF_LOADER} may`);
    }
  }

  const importer = staticGraph(meta.inputs, ENTRY);
  const lazy = new Set();
  for (const input of Object.values(meta.inputs))
    for (const imp of input.imports ?? []) if (imp.kind === "dynamic-import" && !imp.external) lazy.add(imp.path);
  for (const file of lazy) {
    if (importer.has(file))
      problems.push(
        `${file} is imported lazily, but also statically from ${ENTRY}, so it is evaluated at startup: ${chain(importer, file)}`,
      );
  }
  const heavy = new Map();
  for (const file of importer.keys()) {
    const what = NOT_AT_STARTUP.exec(file)?.[1] ?? (FAMILY_FOLDERS.test(file) ? file : undefined);
    if (what && !heavy.has(what)) heavy.set(what, file);
  }
  for (const [what, file] of heavy) problems.push(`${what} is evaluated at startup: ${chain(importer, file)}`);
  return { problems, staticModules: importer.size };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = mkdtempSync(path.join(tmpdir(), "check-startup-"));
  try {
    const res = spawnSync(
      process.execPath,
      [wranglerBin, "deploy", "--dry-run", "--outdir", out, "--metafile", path.join(out, "meta.json")],
      {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
      },
    );
    if (res.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${res.stderr}${res.stdout}`);
    const { problems, staticModules } = startupProblems(JSON.parse(readFileSync(path.join(out, "meta.json"), "utf8")));
    for (const vendor of ["payments.mjs", "pdf.mjs"]) {
      if (!existsSync(path.join(out, "vendor", vendor)))
        problems.push(
          `vendor/${vendor} is not part of the upload (wrangler.toml find_additional_modules and its ESModule rule)`,
        );
    }
    if (problems.length) {
      console.error(`check:startup failed (docs/architecture.md, "The entry point"):\n- ${problems.join("\n- ")}`);
      process.exit(1);
    }
    console.log(
      `check:startup: ${staticModules} modules evaluated at startup; the payment stack, the PDF reader, the route families and the queue consumers load on first use`,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
