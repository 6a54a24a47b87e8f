// `npm run check:payment-split` (part of `npm run typecheck`): fails when the payment stack is back in
// the Worker's entry module. mppx, viem and ox belong in src/vendor/payments.mjs, loaded on first use
// (src/payment-vendor.ts); a value import of one of them anywhere under src/ (a type import is fine)
// would bundle it into every isolate's startup again.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { root, wranglerBin } from "./lib/local.mjs";

const PAYMENT_PACKAGES = /node_modules\/(mppx|viem|ox|abitype|@noble\/curves)\//;
const out = mkdtempSync(path.join(tmpdir(), "payment-split-"));
try {
  const res = spawnSync(process.execPath, [wranglerBin, "deploy", "--dry-run", "--outdir", out, "--metafile", path.join(out, "meta.json")], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  if (res.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${res.stderr}${res.stdout}`);
  const meta = JSON.parse(readFileSync(path.join(out, "meta.json"), "utf8"));
  const entry = Object.entries(meta.outputs).find(([file]) => file.endsWith("index.js"))?.[1];
  if (!entry) throw new Error("no index.js in the build's metafile");
  const leaked = Object.keys(entry.inputs).filter((input) => PAYMENT_PACKAGES.test(input));
  const problems = [];
  if (leaked.length) {
    const packages = [...new Set(leaked.map((i) => PAYMENT_PACKAGES.exec(i)[1]))].join(", ");
    problems.push(`the entry module bundles ${leaked.length} files of ${packages}; import their values through src/payment-vendor.ts (type imports are fine)`);
  }
  if (!existsSync(path.join(out, "vendor", "payments.mjs"))) problems.push("vendor/payments.mjs is not part of the upload (wrangler.toml find_additional_modules and its ESModule rule)");
  if (problems.length) {
    console.error(`check:payment-split failed:\n- ${problems.join("\n- ")}`);
    process.exit(1);
  }
  console.log("check:payment-split: the payment stack is a separate module, loaded on first use");
} finally {
  rmSync(out, { recursive: true, force: true });
}
