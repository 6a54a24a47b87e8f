// Helpers for scripts that work on the local (wrangler dev) state: D1 queries and the dev secrets file.
import { spawnSync } from "node:child_process";
import { createHash, pbkdf2Sync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export const root = path.resolve(import.meta.dirname, "../..");
export const wranglerBin = path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");

/**
 * Where the local state lives: PERSIST_TO (docs/configuration.md) or wrangler's default
 * .wrangler/state. The demo credentials are kept beside it.
 */
export const persistTo = process.env.PERSIST_TO ? path.resolve(process.env.PERSIST_TO) : undefined;
export const demoCredentialsFile = path.join(persistTo ?? path.join(root, ".wrangler"), "demo-credentials.json");

/** Runs a wrangler command; `persistTo` points it at another state directory (benches, browser check). */
export function wrangler(args, { quiet = true, persistTo: stateDir = persistTo } = {}) {
  const res = spawnSync(process.execPath, [wranglerBin, ...args, ...(stateDir ? ["--persist-to", stateDir] : [])], {
    cwd: root,
    encoding: "utf8",
    stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  if (res.status !== 0) {
    throw new Error(`wrangler ${args.join(" ")} failed:\n${res.stderr ?? ""}${res.stdout ?? ""}`);
  }
  return res.stdout ?? "";
}

/**
 * The main database's migrations, then the index databases' (applied whatever INDEX_SHARDS says, so
 * either setting runs), by scripts/lib/migrate-local.mjs in one process (five `wrangler d1 migrations
 * apply` calls started a workerd per migration file: ~30 s). `npm start` (seed.mjs) skips it when
 * migrationsApplied says nothing changed since it last ran. Records what it applied.
 */
export function applyMigrations({ persistTo: stateDir = persistTo } = {}) {
  const state = stateDir ?? path.join(root, ".wrangler", "state");
  const res = spawnSync(process.execPath, [path.join(root, "scripts", "lib", "migrate-local.mjs"), state], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  if (res.status !== 0) throw new Error(`applying the migrations failed:\n${res.stderr ?? ""}${res.stdout ?? ""}`);
  const { file, record } = appliedRecord(stateDir);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(record));
}

/**
 * Whether the last applyMigrations on this state directory applied the migrations folders as they
 * are now, and every database file it left is still there. Kept inside the state's D1 folder, so a
 * deleted state (or a deleted database file) applies them again; `npm run db:migrate` stays the
 * way to apply them whatever this says.
 */
export function migrationsApplied({ persistTo: stateDir = persistTo } = {}) {
  const { file, record } = appliedRecord(stateDir);
  if (!existsSync(file)) return false;
  const last = JSON.parse(readFileSync(file, "utf8"));
  return last.migrations === record.migrations && last.databases.every((db) => record.databases.includes(db));
}

/** Where the record of applied migrations lives, and what it would say now. */
function appliedRecord(stateDir) {
  const d1Dir = path.join(stateDir ?? path.join(root, ".wrangler", "state"), "v3", "d1");
  const hash = createHash("sha256");
  for (const dir of ["migrations", "migrations-index"])
    for (const name of readdirSync(path.join(root, dir))
      .filter((f) => f.endsWith(".sql"))
      .sort())
      hash.update(`${dir}/${name}\0`).update(readFileSync(path.join(root, dir, name)));
  const objects = path.join(d1Dir, "miniflare-D1DatabaseObject");
  const databases = existsSync(objects) ? readdirSync(objects).filter((f) => f.endsWith(".sqlite")) : [];
  return { file: path.join(d1Dir, "applied-migrations.json"), record: { migrations: hash.digest("hex"), databases } };
}

/** Runs SQL against the local D1 database and returns the rows of the last statement. */
export function d1(sql) {
  const out = wrangler(["d1", "execute", "DB", "--local", "--json", "--command", sql]);
  const parsed = JSON.parse(out.slice(out.indexOf("[")));
  return parsed.at(-1)?.results ?? [];
}

export const sqlText = (v) => (v === null || v === undefined ? "NULL" : `'${String(v).replace(/'/g, "''")}'`);

/** Local secrets for `wrangler dev`, created once with random values. */
export function ensureDevVars() {
  const file = path.join(root, ".dev.vars");
  const existing = existsSync(file) ? readFileSync(file, "utf8") : "";
  const wanted = {
    OPERATOR_SECRET: randomBytes(24).toString("base64url"),
    MPP_SECRET_KEY: randomBytes(32).toString("base64url"),
  };
  const missing = Object.entries(wanted).filter(([k]) => !new RegExp(`^${k}=`, "m").test(existing));
  if (missing.length) {
    const lines = missing.map(([k, v]) => `${k}=${v}`).join("\n");
    writeFileSync(file, `${existing}${existing && !existing.endsWith("\n") ? "\n" : ""}${lines}\n`);
  }
  return Object.fromEntries(
    readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

/** The stored form of a password, as the Worker checks it (src/platform/crypto.ts). */
export function passwordHash(password) {
  const salt = randomBytes(16);
  const hash = pbkdf2Sync(password, salt, 100_000, 32, "sha256");
  return `pbkdf2-sha256$100000$${salt.toString("base64")}$${hash.toString("base64")}`;
}
