// The 30-day repeat lookup (`RepeatWindows.find`, src/limits/repeat-windows.ts) timed in SQLite
// (node:sqlite) on a table of `count` windows of one account. The class itself makes its table,
// through a SqlStorage stand-in over the real database, so the bench follows its schema wherever it
// goes (the copy of the schema it once replayed broke on a column added since: "duplicate column
// name: call"); its `find` statement is captured from one call and then timed alone.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import * as esbuild from "esbuild";
import { median, root } from "./dev-server.mjs";

/** RepeatWindows, bundled for Node from the source. */
export async function repeatWindowsClass() {
  const built = await esbuild.build({
    stdin: {
      contents: `export { RepeatWindows } from "./src/limits/repeat-windows.ts";`,
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    write: false,
    external: ["cloudflare:*"],
    logLevel: "error",
  });
  const module = await import(
    `data:text/javascript;base64,${Buffer.from(built.outputFiles[0].text).toString("base64")}`
  );
  return module.RepeatWindows;
}

/** The Durable Object's SqlStorage over a node:sqlite database, recording each statement it runs. */
function sqlStorageOver(db, seen) {
  return {
    exec: (statement, ...params) => {
      seen.push({ sql: statement, params });
      const rows = db.prepare(statement).all(...params);
      return { toArray: () => rows, one: () => rows[0], [Symbol.iterator]: () => rows[Symbol.iterator]() };
    },
  };
}

/** p50 of the lookup on a table of `count` windows, for windows that exist and ones that do not (`probes` each). */
export function timeRepeatLookup(RepeatWindows, count, probes = 2000) {
  const dir = mkdtempSync(path.join(tmpdir(), "bench-repeat-windows-"));
  const db = new DatabaseSync(path.join(dir, "limiter.sqlite"));
  try {
    const seen = [];
    const windows = new RepeatWindows(sqlStorageOver(db, seen));
    const marker = "f".repeat(64);
    seen.length = 0;
    windows.find(marker, Date.now());
    if (seen.length !== 1) throw new Error(`RepeatWindows.find ran ${seen.length} statements; the bench expects one`);
    const { sql, params } = seen[0];
    const now = Date.now();
    const fingerprint = (n) => createHash("sha256").update(`scale ${n}`).digest("hex");
    const insert = db.prepare(
      "INSERT INTO repeat_windows (fingerprint, billed_at, account_id, capability, source, synced) VALUES (?, ?, 1, 'email-finder', 'API', 1)",
    );
    db.exec("BEGIN");
    for (let n = 0; n < count; n++) insert.run(fingerprint(n), now - (n % 40) * 86_400_000);
    db.exec("COMMIT");
    const stmt = db.prepare(sql);
    const at = params.indexOf(marker);
    const run = (fp) => {
      const p = [...params];
      p[at] = fp;
      const start = process.hrtime.bigint();
      const rows = stmt.all(...p);
      return { ms: Number(process.hrtime.bigint() - start) / 1e6, found: rows.length };
    };
    const hit = [];
    const miss = [];
    for (let i = 0; i < probes; i++) {
      const n = (i * 7919) % Math.max(1, count);
      const h = run(fingerprint(n));
      if (h.found) hit.push(h.ms);
      miss.push(run(createHash("sha256").update(`absent ${n}`).digest("hex")).ms);
    }
    return { hit: median(hit), miss: median(miss), hits: hit.length, sql };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
