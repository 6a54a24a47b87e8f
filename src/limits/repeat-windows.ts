import { DAY_MS } from "../platform/time.js";

/**
 * docs/wire-contract.md §3.2: an identical request (same capability, normalised parameters, account) is billed
 * once per 30 days. The first billed answer opens the window; repeats inside it are free and do
 * not extend it.
 */
export const REPEAT_WINDOW_MS = 30 * DAY_MS;

/** Where a window stands when an admission looks it up. */
export interface OpenWindow {
  billedAt: number;
  /** The call whose charge kept it (its reservation or late-charge key; null on rows kept before schema version 2). */
  call?: string | null;
  /** What that call was charged for this request (null on rows kept before schema version 2). */
  charged?: Record<string, number> | null;
}

/** A billed request the D1 copy has not received yet (written by usage-copy.ts). */
export interface WindowCharge {
  accountId: number;
  fingerprint: string;
  billedAt: number;
  capability: string;
  source: string;
}

/** Rows handed to the D1 copy in one batch. */
export const SYNC_BATCH = 500;

/**
 * The 30-day repeat windows of one account, in its AccountLimiter's SQLite storage (table
 * `repeat_windows`). Every method is synchronous, so the limiter decides and writes a window in the
 * same storage transaction as the rate-limit counters and the credit reservation.
 *
 * The table holds windows of requests that were billed ("kept"), written in the transaction that
 * charges them, with the call that paid (`call`) and what it paid (`charged`): a settlement or late
 * charge sent again is answered from them. Identical calls running side by side each hold their
 * cost; the first charged keeps the window, the others find it and are its repeats (so two requests
 * racing each other are billed once, and one that fails or finds nothing leaves no other free).
 * `synced` = 0 marks a kept window the D1 copy has not received yet.
 */
export class RepeatWindows {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS repeat_windows (
      fingerprint TEXT PRIMARY KEY,
      billed_at INTEGER NOT NULL,
      account_id INTEGER NOT NULL,
      capability TEXT NOT NULL,
      source TEXT NOT NULL,
      synced INTEGER NOT NULL DEFAULT 0,
      call TEXT,
      charged TEXT
    ) WITHOUT ROWID`);
    sql.exec("CREATE INDEX IF NOT EXISTS repeat_windows_billed_at ON repeat_windows (billed_at)");
    sql.exec("CREATE INDEX IF NOT EXISTS repeat_windows_unsynced ON repeat_windows (billed_at) WHERE synced = 0");
  }

  /** The window of `fingerprint` if it is open at `now` (billed less than 30 days before). */
  find(fingerprint: string, now: number): OpenWindow | null {
    const [row] = this.sql
      .exec<{ billed_at: number; call: string | null; charged: string | null }>(
        "SELECT billed_at, call, charged FROM repeat_windows WHERE fingerprint = ?",
        fingerprint,
      )
      .toArray();
    if (!row || row.billed_at <= now - REPEAT_WINDOW_MS) return null;
    return {
      billedAt: row.billed_at,
      call: row.call,
      charged: row.charged === null ? null : (JSON.parse(row.charged) as Record<string, number>),
    };
  }

  /**
   * Keeps the windows of a billed call: repeats of these requests are free until 30 days after
   * `billedAt`. `call` names the charge and `charged` what each request cost (a settlement or late
   * charge sent again is answered from them).
   */
  keep(
    requests: readonly { fingerprint: string; charged: Record<string, number> | null }[],
    charge: { accountId: number; capability: string; source: string; billedAt: number; call: string },
  ): void {
    for (const { fingerprint, charged } of requests) {
      this.sql.exec(
        "INSERT OR REPLACE INTO repeat_windows (fingerprint, billed_at, account_id, capability, source, synced, call, charged) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
        fingerprint,
        charge.billedAt,
        charge.accountId,
        charge.capability,
        charge.source,
        charge.call,
        charged === null ? null : JSON.stringify(charged),
      );
    }
  }

  /** Kept windows the D1 copy has not received, oldest first. */
  unsynced(limit = SYNC_BATCH): WindowCharge[] {
    return this.sql
      .exec<{ fingerprint: string; billed_at: number; account_id: number; capability: string; source: string }>(
        "SELECT fingerprint, billed_at, account_id, capability, source FROM repeat_windows WHERE synced = 0 ORDER BY billed_at LIMIT ?",
        limit,
      )
      .toArray()
      .map((r) => ({
        accountId: r.account_id,
        fingerprint: r.fingerprint,
        billedAt: r.billed_at,
        capability: r.capability,
        source: r.source,
      }));
  }

  /** Marks windows as received by D1 (a window replaced since it was read keeps its own mark). */
  markSynced(charges: readonly WindowCharge[]): void {
    this.sql.exec(
      `UPDATE repeat_windows SET synced = 1 WHERE (fingerprint, billed_at) IN
        (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`,
      JSON.stringify(charges.map((c) => [c.fingerprint, c.billedAt])),
    );
  }

  /** Deletes windows closed at `now` that D1 already holds. */
  sweep(now: number): void {
    this.sql.exec("DELETE FROM repeat_windows WHERE billed_at <= ? AND synced = 1", now - REPEAT_WINDOW_MS);
  }

  hasUnsynced(): boolean {
    return this.sql.exec("SELECT 1 FROM repeat_windows WHERE synced = 0 LIMIT 1").toArray().length > 0;
  }

  /** The billing instant of the oldest window sweep() may delete one day, or null when there is none. */
  oldestSynced(): number | null {
    const [row] = this.sql
      .exec<{ at: number | null }>("SELECT min(billed_at) AS at FROM repeat_windows WHERE synced = 1")
      .toArray();
    return row?.at ?? null;
  }

  count(): number {
    const [row] = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM repeat_windows").toArray();
    return row?.n ?? 0;
  }
}
