/**
 * Admissions already decided by one account's limiter, by their idempotency key (table
 * `admission_keys` in its SQLite storage). An isolate whose round trip failed or was cancelled does
 * not know whether the limiter decided its admissions: it sends the same keys again, and each
 * decided one answers what it answered the first time, without being counted or reserved twice.
 *
 * A row is kept ADMISSION_KEY_TTL_MS after its decision, and for as long as the reservations it
 * made are held (a bulk chunk sent again asks under the same key while the first delivery's
 * reservation runs, see src/bulk/consumer.ts); the sweep deletes it with its last reservation.
 */
export const ADMISSION_KEY_TTL_MS = 10 * 60_000;
/**
 * Keys a customer or an operator chose (a credit pack's `Idempotency-Key`) are kept this long, like
 * the 30-day repeat window: a client that retries days later still gets the first answer.
 */
export const GRANT_KEY_TTL_MS = 30 * 86_400_000;

/** The two key tables: the admissions' (short-lived), and the grants' (`grant_keys`, 30 days). */
export type KeyTable = "admission_keys" | "grant_keys";

export class AdmissionKeys {
  constructor(
    private readonly sql: SqlStorage,
    private readonly table: KeyTable = "admission_keys",
  ) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS ${table} (key TEXT PRIMARY KEY, at INTEGER NOT NULL, result TEXT NOT NULL) WITHOUT ROWID`,
    );
    sql.exec(`CREATE INDEX IF NOT EXISTS ${table}_at ON ${table} (at)`);
  }

  /** The answer stored for `key`, or null when it was never decided (or is forgotten). */
  find<T>(key: string): T | null {
    const [row] = this.sql.exec<{ result: string }>(`SELECT result FROM ${this.table} WHERE key = ?`, key).toArray();
    return row ? (JSON.parse(row.result) as T) : null;
  }

  /** True when a key starting with `prefix` is kept (a range of the primary key: one index read). */
  anyStartingWith(prefix: string): boolean {
    // Every key starting with `prefix` sorts before `prefix` with its last character one higher.
    const after = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const rows = this.sql.exec(`SELECT 1 FROM ${this.table} WHERE key >= ? AND key < ? LIMIT 1`, prefix, after);
    return rows.toArray().length > 0;
  }

  remember(key: string, at: number, result: unknown): void {
    this.sql.exec(
      `INSERT OR REPLACE INTO ${this.table} (key, at, result) VALUES (?, ?, ?)`,
      key,
      at,
      JSON.stringify(result),
    );
  }

  forget(key: string): void {
    this.sql.exec(`DELETE FROM ${this.table} WHERE key = ?`, key);
  }

  /** Deletes keys decided before `before` whose reservations are gone (`held` says which are not). */
  sweep(before: number, held: (key: string) => boolean = () => false): void {
    const old = this.sql.exec<{ key: string }>(`SELECT key FROM ${this.table} WHERE at < ?`, before).toArray();
    for (const { key } of old) if (!held(key)) this.forget(key);
  }

  /** The decision instant of the oldest key, or null when there is none. */
  oldest(): number | null {
    const [row] = this.sql.exec<{ at: number | null }>(`SELECT min(at) AS at FROM ${this.table}`).toArray();
    return row?.at ?? null;
  }
}
