import { describe, expect, it } from "vitest";
import storage from "../../docs/storage.md?raw";
import { cachedKey, rememberKey, type VerifiedKey } from "../../src/auth/auth-cache.js";
import { isWebmailDomain as isWebmail } from "../../src/engine/data/domain-lists.js";
import {
  BoundedMap,
  ISOLATE_STATE,
  type IsolateStateDeclaration,
  type IsolateStateName,
  piecesInUse,
  resetIsolateState,
} from "../../src/platform/isolate-state.js";

const sources = import.meta.glob(["../../src/**/*.{ts,tsx}", "!../../src/vendor/**"], {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;
const declarations = Object.entries(ISOLATE_STATE) as [IsolateStateName, IsolateStateDeclaration][];

/** Where each piece is asked for: `expiringMap<…>("name")` and its siblings. */
function requests(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [path, text] of Object.entries(sources)) {
    const file = path.replace(/^(\.\.\/)+/, "");
    for (const m of text.matchAll(
      /\b(?:expiringMap|boundedMap|perBinding|isolateValue)(?:<[^(]*>)?\(\s*"([A-Za-z]+)",?\s*\)/g,
    )) {
      found.set(m[1]!, [...(found.get(m[1]!) ?? []), file]);
    }
  }
  return found;
}

/** Constant tables filled once at load from the module's own literals: not state. */
const CONSTANT_TABLES = ["src/engine/people/names.ts: const NICKNAMES"];

/**
 * Module-level state outside the registry: a `let`, an ExpiringMap, or an empty Map, Set or WeakMap
 * made at the top of a module. Constant tables built from literals are not state.
 */
function strayState(): string[] {
  const stray: string[] = [];
  for (const [path, text] of Object.entries(sources)) {
    const file = path.replace(/^(\.\.\/)+/, "");
    if (file === "src/platform/isolate-state.ts") continue;
    for (const line of text.split("\n")) {
      const state =
        /^(?:export )?let\s/.test(line) ||
        /^(?:export )?const\s+\w+\s*(?::[^=]+)?=\s*new\s+ExpiringMap\b/.test(line) ||
        /^(?:export )?const\s+\w+\s*(?::[^=]+)?=\s*new\s+(?:Map|Set|WeakMap|WeakSet)\b[^(]*\(\s*\)/.test(line);
      if (state && !CONSTANT_TABLES.some((table) => line.startsWith(table.split(": ")[1]!)))
        stray.push(`${file}: ${line.trim()}`);
    }
  }
  return stray;
}

/** The docs/storage.md table, as this module's declarations render it. */
function renderedTable(): string {
  const rows = declarations.map(([name, d]) => {
    const bound =
      d.maxEntries === null
        ? d.kind === "per binding"
          ? "one per binding"
          : "one value"
        : `${d.maxEntries.toLocaleString("en-US")} entries`;
    return `| ${d.holds} | \`${name}\` in \`${d.owner}\` | ${bound} | ${d.lifetime} | ${d.invalidatedBy} | ${d.derived ? "kept" : "emptied"} |`;
  });
  return ["| What | Piece | Bound | Lifetime | Dropped sooner by | Reset |", "|---|---|---|---|---|---|", ...rows].join(
    "\n",
  );
}

describe("per-isolate state has one owner", () => {
  it("asks for each declared piece in exactly one module, the one its declaration names", () => {
    const asked = requests();
    for (const [name, d] of declarations) expect([name, asked.get(name)]).toEqual([name, [d.owner]]);
    expect([...asked.keys()].filter((name) => !(name in ISOLATE_STATE))).toEqual([]);
  });

  it("keeps no other module-level state: every cache and pending batch goes through src/platform/isolate-state.ts", () => {
    expect(strayState()).toEqual([]);
  });

  it("would notice a module that keeps a Map of its own", () => {
    sources["../../src/engine/planted.ts"] = "const seen = new Map<string, number>();\nlet last: string | undefined;";
    try {
      expect(strayState()).toEqual([
        "src/engine/planted.ts: const seen = new Map<string, number>();",
        "src/engine/planted.ts: let last: string | undefined;",
      ]);
    } finally {
      delete sources["../../src/engine/planted.ts"];
    }
  });

  it("is listed in docs/storage.md exactly as declared", () => {
    expect(storage, `docs/storage.md should hold this table:\n${renderedTable()}`).toContain(renderedTable());
  });

  it("is empty again after a reset, but for what is derived from the bundled data alone", () => {
    const verified = { key: { id: 1 }, actor: { id: 1 }, owner: null } as unknown as VerifiedKey;
    rememberKey("ck_reset", "hash", verified, 1_000);
    expect(isWebmail("gmail.com")).toBe(true);
    expect(piecesInUse()).toEqual(expect.arrayContaining(["verifiedKeys", "domainLists"]));
    resetIsolateState();
    expect(cachedKey("ck_reset", "hash", 1_001)).toBeNull();
    expect(isWebmail("gmail.com")).toBe(true);
  });

  it("drops the oldest entry of a bounded map beyond its bound", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    map.set("a", 3);
    map.set("c", 4);
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([3, undefined, 4]);
  });
});
