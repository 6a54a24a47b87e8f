#!/usr/bin/env node
// Fails when package-lock.json lacks an optional (platform) package that a locked package lists:
// `npm ci` on another platform would then refuse the lock file. Run by .ci/run before `npm ci`.
import { readFileSync } from "node:fs";

const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8"));
const packages = lock.packages ?? {};
const missing = [];
for (const [path, meta] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    // Resolution walks up from the package's own node_modules to the root one.
    const parts = path ? path.split("node_modules/").filter(Boolean) : [];
    let found = false;
    for (let depth = parts.length; depth >= 0 && !found; depth--) {
      const prefix = parts
        .slice(0, depth)
        .map((p) => `node_modules/${p.replace(/\/$/, "")}/`)
        .join("");
      found = `${prefix}node_modules/${name}` in packages;
    }
    if (!found) missing.push(`${path || "(root)"} -> ${name}@${version}`);
  }
}
if (missing.length) {
  console.error(
    `package-lock.json lacks ${missing.length} optional package(s); npm ci would fail on some platform:\n  ${missing.join("\n  ")}`,
  );
  process.exit(1);
}
console.log(
  `package-lock.json: every optional package of ${Object.keys(packages).length - 1} locked packages is locked.`,
);
