import { describe, expect, it } from "vitest";
import configuration from "../../docs/configuration.md?raw";
import envSource from "../../src/env.ts?raw";

// One set of environment variables, in one table: docs/configuration.md.
const scriptSources = import.meta.glob<string>(["../../scripts/**/*.mjs", "../../bench/**/*.mjs"], {
  query: "?raw",
  import: "default",
  eager: true,
});

function documented(): Set<string> {
  const start = configuration.indexOf("| Variable |");
  const table = configuration.slice(start, configuration.indexOf("\n\n", start));
  const names = new Set<string>();
  for (const row of table.split("\n").filter((l) => l.startsWith("| `"))) {
    for (const m of row.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]!);
  }
  return names;
}

describe("docs/configuration.md: one table of environment variables", () => {
  it("has exactly one table of variables", () => {
    expect(configuration.match(/^\| Variable \|/gm)).toHaveLength(1);
    expect(documented().size).toBeGreaterThan(20);
  });

  it("lists every variable the Worker reads (src/env.ts)", () => {
    const vars = [...envSource.matchAll(/^\s+([A-Z][A-Z0-9_]+)\?: string;/gm)].map((m) => m[1]!);
    expect(vars.length).toBeGreaterThan(10);
    expect(vars.filter((v) => !documented().has(v))).toEqual([]);
  });

  it("lists every variable the scripts and benches read from the shell", () => {
    const read = new Set<string>();
    for (const raw of Object.values(scriptSources)) {
      // A quoted "process.env.X" is a name written into a build (esbuild's define), not a read.
      const source = raw.replace(/["'`]process\.env\.[A-Z0-9_]+["'`]/g, "");
      for (const m of source.matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g)) read.add(m[1]!);
      for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) read.add(m[1]!);
    }
    expect(read).toContain("PORT");
    expect(read).toContain("BASE_URL");
    // Wrangler's own switch, set by npm start for its child, is not a variable for people to set.
    const own = new Set(["WRANGLER_SEND_METRICS", "CLOUDFLARE_CF_FETCH_ENABLED", "CI", "FUZZ_RUNS", "FUZZ_SEED"]);
    expect([...read].filter((v) => !own.has(v) && !documented().has(v))).toEqual([]);
  });
});
