// Dependencies point one way: features → capabilities → engine → platform. Each folder of src/ has a
// rank; a module may import from its own folder or from a folder of lower rank, never from above, and
// never sideways (features never reach into each other), except on the floor and at the entry, whose
// parts build on one another (the floor's file-level cycles are refused by Biome's noImportCycles, `check:cycles`).
// env.ts, the bindings type, may name any module's types.
import { describe, expect, it } from "vitest";

const sources = import.meta.glob(["../src/**/*.ts", "../src/**/*.tsx", "!../src/vendor/**"], {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

/** Lowest first. Folders on one line share a rank and may not import each other, but on the floor and at the entry. */
const LAYERS: string[][] = [
  ["platform", "db", "vendor", "env.ts", "request-context.ts", "payment-vendor.ts", "pdf-vendor.ts"],
  ["engine"],
  ["http"],
  ["limits", "delivery"],
  ["capabilities", "import"],
  ["auth"],
  ["account", "agent", "bulk", "leads", "oauth", "operator"],
  ["mcp", "dashboard"],
  ["app.ts", "index.ts"],
];
const rank = new Map(LAYERS.flatMap((names, i) => names.map((name) => [name, i] as const)));
const OPEN_RANKS = new Set([0, LAYERS.length - 1]);

/** The folder of src/ (or root file) a path under src/ belongs to. */
function unitOf(pathUnderSrc: string): string {
  return pathUnderSrc.split("/")[0]!;
}

function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const piece of specifier.split("/")) {
    if (piece === "..") parts.pop();
    else if (piece !== ".") parts.push(piece);
  }
  return parts.join("/");
}

interface Edge {
  file: string;
  line: string;
  from: string;
  to: string;
  typeOnly: boolean;
}

function edges(files: Record<string, string>): Edge[] {
  const out: Edge[] = [];
  for (const [path, text] of Object.entries(files)) {
    const file = path.replace(/^\.\.\/src\//, "");
    const statements =
      text.match(/(?:^|\n)\s*(?:import|export)\b[^;]*?from\s+"\.[^"]+"|import\(\s*"\.[^"]+"\s*\)/g) ?? [];
    for (const statement of statements) {
      const specifier = /"(\.[^"]+)"/.exec(statement)![1]!;
      const target = resolve(file, specifier);
      const from = unitOf(file);
      const to = unitOf(target);
      if (from === to) continue;
      out.push({
        file,
        line: statement.trim().replace(/\s+/g, " "),
        from,
        to,
        typeOnly: /^(?:import|export)\s+type\b/.test(statement.trim()),
      });
    }
  }
  return out;
}

/** Imports that point sideways or up, as readable lines. */
function violations(all: Edge[]): string[] {
  return all
    .filter((e) => !(e.from === "env.ts" && e.typeOnly))
    .filter(
      (e) =>
        rank.get(e.to)! > rank.get(e.from)! ||
        (rank.get(e.to) === rank.get(e.from) && !OPEN_RANKS.has(rank.get(e.from)!)),
    )
    .map((e) => `${e.file} (${e.from}) -> ${e.to}: ${e.line}`);
}

describe("the layers of src/", () => {
  const all = edges(sources);

  it("reads every module and knows every folder", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(250);
    const unknown = [...new Set(Object.keys(sources).map((p) => unitOf(p.replace(/^\.\.\/src\//, ""))))].filter(
      (u) => !rank.has(u),
    );
    expect(unknown).toEqual([]);
  });

  it("imports only downward: no module imports from its own rank's other folders or from above", () => {
    expect(violations(all)).toEqual([]);
  });

  it("would catch an upward, a sideways and a type-only import", () => {
    const planted = edges({
      "../src/engine/x.ts": 'import { ApiError } from "../http/errors.js";',
      "../src/account/y.ts": 'import { servePaid } from "../agent/payment-gate.js";',
      "../src/platform/z.ts": 'import type { Capability } from "../capabilities/core/registry.js";',
      "../src/bulk/ok.ts": 'import { db } from "../db/client.js";',
    });
    expect(violations(planted).map((v) => v.split(" ")[0])).toEqual(["engine/x.ts", "account/y.ts", "platform/z.ts"]);
  });

  it("lets the bindings type name other modules' types, and nothing else", () => {
    const runtime = all.filter((e) => e.from === "env.ts" && !e.typeOnly && rank.get(e.to)! > 0).map((e) => e.line);
    expect(runtime).toEqual([]);
  });

  it("keeps the engine free of HTTP, routes and accounts", () => {
    expect(all.filter((e) => e.from === "engine" && rank.get(e.to)! > rank.get("engine")!)).toEqual([]);
  });
});
