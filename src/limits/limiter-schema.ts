import { AdmissionKeys } from "./admission-keys.js";
import { CreditBook, type CreditState } from "./credit-book.js";
import type { CreditBalance } from "./groups.js";

/**
 * The account limiter's storage schema, versioned: the version is the `schema` key of its storage,
 * and the migrations below take an object from the version it holds to LIMITER_SCHEMA_VERSION, in
 * order, once (in the transaction that loads it). An object that has never stored a version is at
 * version 1. Code outside a migration only ever sees the current schema.
 */
export const LIMITER_SCHEMA_VERSION = 3;
const SCHEMA_KEY = "schema";

/** A reservation as schema version 1 stores it (`r:` keys), read only by the migration to version 2. */
interface VersionOneReservation {
  balance: CreditBalance;
  amount?: number;
  windows?: unknown;
  fromPlan?: number;
  fromPack?: number;
  month?: string;
}

type Migration = (storage: DurableObjectStorage, now: number) => void;

const hasTable = (sql: SqlStorage, name: string) =>
  sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;

/**
 * Gives back what a schema-version-1 reservation charged at admission: to the pack what came from
 * it, to the allowance the rest, but only within the month it was taken in.
 */
function refundCharged(credits: CreditBook, r: VersionOneReservation, now: number): void {
  const s = credits.current(now);
  const fromPlan = r.fromPlan ?? 0;
  const fromPack = r.fromPack ?? 0;
  if (fromPlan > 0 && (r.month === undefined || r.month === s.month))
    s.used[r.balance] = Math.max(0, s.used[r.balance] - fromPlan);
  if (fromPack > 0 && s.pack) s.pack.remaining += fromPack;
  credits.dirty = true;
}

const MIGRATIONS: Migration[] = [
  // 1 -> 2. The repeat-window table gets the columns a charge is answered from (`call`, `charged`).
  // Reservations of limiters before credits were held end as the sweep ends them: those charged at
  // admission (no `amount`) are refunded; windows their call opened in the table (`windows: true`)
  // close. Their settlement then finds nothing and reports the call not billed.
  (storage, now) => {
    const sql = storage.sql;
    const hasWindows = hasTable(sql, "repeat_windows");
    if (hasWindows) {
      const columns = sql
        .exec<{ name: string }>("PRAGMA table_info(repeat_windows)")
        .toArray()
        .map((c) => c.name);
      if (!columns.includes("call")) sql.exec("ALTER TABLE repeat_windows ADD COLUMN call TEXT");
      if (!columns.includes("charged")) sql.exec("ALTER TABLE repeat_windows ADD COLUMN charged TEXT");
    }
    const credits = new CreditBook(storage.kv.get<CreditState>("credits"));
    for (const [key, value] of storage.kv.list<VersionOneReservation>({ prefix: "r:" })) {
      const chargedAtAdmission = value.amount === undefined;
      const windowsInTable = value.windows === true;
      if (!chargedAtAdmission && !windowsInTable) continue;
      if (chargedAtAdmission) refundCharged(credits, value, now);
      if (windowsInTable && hasWindows) sql.exec("DELETE FROM repeat_windows WHERE reservation = ?", key.slice(2));
      storage.kv.delete(key);
    }
    if (credits.dirty) storage.kv.put("credits", credits.stored());
  },
  // 2 -> 3. What only the transition to the limiter's own windows and grant keys needed goes:
  // the windows' `reservation` column (set only on rows a running call opened, which version 2
  // closed), the mark that D1's older windows were copied in, and credit-pack keys kept with the
  // admissions' keys, which move to `grant_keys` (kept 30 days from their grant).
  (storage) => {
    const sql = storage.sql;
    storage.kv.delete("windows-adopted");
    if (hasTable(sql, "repeat_windows")) {
      sql.exec("DELETE FROM repeat_windows WHERE reservation IS NOT NULL");
      sql.exec("DROP INDEX IF EXISTS repeat_windows_in_flight");
      sql.exec("DROP INDEX IF EXISTS repeat_windows_unsynced");
      sql.exec("ALTER TABLE repeat_windows DROP COLUMN reservation");
    }
    if (hasTable(sql, "admission_keys")) {
      const packs = sql.exec("SELECT 1 FROM admission_keys WHERE key LIKE 'pack:%' LIMIT 1").toArray();
      if (packs.length) {
        new AdmissionKeys(sql, "grant_keys");
        sql.exec(
          "INSERT OR IGNORE INTO grant_keys (key, at, result) SELECT key, at, result FROM admission_keys WHERE key LIKE 'pack:%'",
        );
        sql.exec("DELETE FROM admission_keys WHERE key LIKE 'pack:%'");
      }
    }
  },
];

/** Brings the object's storage to LIMITER_SCHEMA_VERSION (call inside a storage transaction). */
export function migrateLimiter(storage: DurableObjectStorage, now: number): void {
  const from = storage.kv.get<number>(SCHEMA_KEY) ?? 1;
  if (from >= LIMITER_SCHEMA_VERSION) return;
  for (const migration of MIGRATIONS.slice(from - 1)) migration(storage, now);
  storage.kv.put(SCHEMA_KEY, LIMITER_SCHEMA_VERSION);
}
