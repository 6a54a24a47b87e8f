import { CreditBook, type CreditState } from "./credit-book.js";
import type { CreditBalance } from "./groups.js";

/**
 * The account limiter's storage schema, versioned: the version is the `schema` key of its storage,
 * and the migrations below take an object from the version it holds to LIMITER_SCHEMA_VERSION, in
 * order, once (in the transaction that loads it). An object that has never stored a version is at
 * version 1. Code outside a migration only ever sees the current schema.
 */
export const LIMITER_SCHEMA_VERSION = 2;
const SCHEMA_KEY = "schema";

/** A reservation as schema version 1 stores it (`r:` keys), read only by the migration to version 2. */
interface LegacyReservation {
  balance: CreditBalance;
  amount?: number;
  windows?: unknown;
  fromPlan?: number;
  fromPack?: number;
  month?: string;
}

type Migration = (storage: DurableObjectStorage, now: number) => void;

const MIGRATIONS: Migration[] = [
  // 1 -> 2. The repeat-window table gets the columns a charge is answered from (`call`, `charged`).
  // Reservations of limiters before credits were held end as the sweep ends them: those charged at
  // admission (no `amount`) are refunded; windows their call opened in the table (`windows: true`)
  // close. Their settlement then finds nothing and reports the call not billed.
  (storage, now) => {
    const sql = storage.sql;
    const hasWindows = sql
      .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'repeat_windows'")
      .toArray();
    if (hasWindows.length) {
      const columns = sql
        .exec<{ name: string }>("PRAGMA table_info(repeat_windows)")
        .toArray()
        .map((c) => c.name);
      if (!columns.includes("call")) sql.exec("ALTER TABLE repeat_windows ADD COLUMN call TEXT");
      if (!columns.includes("charged")) sql.exec("ALTER TABLE repeat_windows ADD COLUMN charged TEXT");
    }
    const credits = new CreditBook(storage.kv.get<CreditState>("credits"));
    for (const [key, value] of storage.kv.list<LegacyReservation>({ prefix: "r:" })) {
      const legacyCharge = value.amount === undefined;
      const legacyWindows = value.windows === true;
      if (!legacyCharge && !legacyWindows) continue;
      if (legacyCharge)
        credits.refundCharged(value.balance, value.fromPlan ?? 0, value.fromPack ?? 0, value.month, now);
      if (legacyWindows && hasWindows.length)
        sql.exec("DELETE FROM repeat_windows WHERE reservation = ?", key.slice(2));
      storage.kv.delete(key);
    }
    if (credits.dirty) storage.kv.put("credits", credits.stored());
  },
];

/** Brings the object's storage to LIMITER_SCHEMA_VERSION (call inside a storage transaction). */
export function migrateLimiter(storage: DurableObjectStorage, now: number): void {
  const from = storage.kv.get<number>(SCHEMA_KEY) ?? 1;
  if (from >= LIMITER_SCHEMA_VERSION) return;
  for (const migration of MIGRATIONS.slice(from - 1)) migration(storage, now);
  storage.kv.put(SCHEMA_KEY, LIMITER_SCHEMA_VERSION);
}
