// Applies the migrations of every D1 database in wrangler.toml to the local state, in one process:
// what `wrangler d1 migrations apply <binding> --local` does for one database, which starts a new
// workerd for every migration file (17 for the main database): five such calls took ~30 s and
// ~14 s of CPU, this ~3 s and ~2 s. The same database files (one local runtime with the bindings
// wrangler dev uses), the same migrations table and rows, the same SQL splitting (wrangler's).
//   node scripts/lib/migrate-local.mjs <state directory>   (run by applyMigrations in local.mjs)
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { getPlatformProxy, unstable_readConfig, unstable_splitSqlQuery } from "wrangler";

const root = path.resolve(import.meta.dirname, "../..");
const configPath = path.join(root, "wrangler.toml");
const stateDir = process.argv[2];
if (!stateDir) throw new Error("usage: node scripts/lib/migrate-local.mjs <state directory>");

const quoted = (name) => `"${name.replace(/"/g, '""')}"`;
const config = unstable_readConfig({ config: configPath });
const { env, dispose } = await getPlatformProxy({
  configPath,
  persist: { path: path.join(stateDir, "v3") },
  remoteBindings: false,
});
try {
  for (const database of config.d1_databases) {
    const db = env[database.binding];
    const table = quoted(database.migrations_table ?? "d1_migrations");
    // wrangler's statement, character for character: the table's schema reads the same either way.
    await db
      .prepare(
        `CREATE TABLE IF NOT EXISTS ${table}(\n\t\tid         INTEGER PRIMARY KEY AUTOINCREMENT,\n\t\tname       TEXT UNIQUE,\n\t\tapplied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL\n);`,
      )
      .run();
    const { results } = await db.prepare(`SELECT name FROM ${table} ORDER BY id`).all();
    const applied = new Set(results.map((r) => r.name));
    const dir = path.join(root, database.migrations_dir ?? "migrations");
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".sql"))
      .sort();
    for (const name of files.filter((f) => !applied.has(f))) {
      // As wrangler: the file and the row recording it, in one batch (one transaction).
      const sql = `${readFileSync(path.join(dir, name), "utf8")}\nINSERT INTO ${table} (name) values ('${name.replace(/'/g, "''")}');`;
      try {
        await db.batch(unstable_splitSqlQuery(sql).map((q) => db.prepare(q)));
      } catch (err) {
        throw new Error(`${database.binding}: migration ${name} failed: ${err.cause?.message ?? err.message}`);
      }
    }
  }
} finally {
  await dispose();
}
