// The packages the test suite imports at run time, for vitest's dependency optimizer
// (vitest.config.ts): read from the import statements of src/, test/ and bench/.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// `import x from "p"`, `} from "p"`, `export … from "p"`, `import("p")`, `import "p"`; `import type` is erased.
const IMPORT =
  /^\s*(?:import(?!\s+type\b)[^"'`;]*?from\s*|}\s*from\s*|export\s[^"'`;]*?from\s*|import\s*)["']([^"'.][^"']*)["']|import\(\s*["']([^"'.][^"']*)["']\s*\)/gm;

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "vendor") yield* sourceFiles(file);
    } else if (/\.(?:ts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) yield file;
  }
}

/** The name of the package a specifier belongs to ("@scope/name" or "name"). */
const packageOf = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/**
 * Every bare specifier (`hono/jsx`, `viem/accounts`) imported by a .ts/.tsx file under `dirs`
 * whose package is a dependency in `root`/package.json, sorted.
 */
export function bareImports(root, dirs) {
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const packages = new Set(Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }));
  // The test runner itself is not a module of the suite.
  for (const runner of ["vitest", "@cloudflare/vitest-plugin"]) packages.delete(runner);
  const found = new Set();
  for (const dir of dirs)
    for (const file of sourceFiles(path.join(root, dir)))
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2];
        if (packages.has(packageOf(specifier))) found.add(specifier);
      }
  return [...found].sort();
}
