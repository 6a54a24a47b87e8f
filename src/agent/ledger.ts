import { DurableObject } from "cloudflare:workers";

/**
 * PaymentLedger: single-use holds on payment credentials, the settlement ledger, and the atomic
 * key/value store mppx's Tempo method uses for its own replay markers.
 *
 * Every RPC method below runs synchronous SQL with no await in between, so each one is atomic with
 * respect to every other request reaching the same object: two requests can never both hold the
 * same credential. Holds are sharded over a few objects by credential id (see `ledgerFor`).
 */

export type HoldOutcome =
  | { status: "held"; token: string }
  /** Another request holds the credential right now (validate -> upstream -> settle in flight). */
  | { status: "busy" }
  /** The credential already paid for an answer. */
  | { status: "spent" }
  /**
   * The credential ran MAX_UNBILLED_RUNS capability calls that ended unbilled within
   * UNBILLED_RUN_WINDOW_MS: it may run again (and pay for an answer) after `retryAfterSeconds`.
   */
  | { status: "unbilled_limit"; runs: number; retryAfterSeconds: number };

/**
 * How many capability calls one payment credential may run that end unbilled (422, 429, 5xx)
 * within UNBILLED_RUN_WINDOW_MS. The spec keeps such answers free and the credential spendable;
 * without a bound one credential could crawl third-party sites for free until its challenge
 * expires. Past the bound the credential is not burnt: it is rate limited (a 429, also unbilled,
 * see src/agent/unbilled-runs.ts) until the window ends, then pays for its next answer as before.
 */
export const MAX_UNBILLED_RUNS = 3;
export const UNBILLED_RUN_WINDOW_MS = 60_000;

export interface SettlementEntry {
  holdId: string;
  endpoint: string;
  /** Base units of the currency, digit string. */
  amount: string;
  /** Token contract address. */
  currency: string;
  /** "USDC" or "USDT". */
  currencySymbol: string;
  method: string;
  payer: string | null;
  reference: string;
}

export interface SettlementRecord extends SettlementEntry {
  settledAt: number;
}

// The ledger reads no binding: its environment is left untyped (`unknown`) on purpose.
export class PaymentLedger extends DurableObject<unknown> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // Storage that names this table `claims` (and settlements' key claim_id) is renamed in place,
    // so every object reads one schema and "claim" means only a removal request.
    const tables = this.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((t) => t.name);
    if (tables.includes("claims") && !tables.includes("holds")) this.sql.exec("ALTER TABLE claims RENAME TO holds");
    if (tables.includes("settlements")) {
      const keys = this.sql
        .exec<{ name: string }>("PRAGMA table_info(settlements)")
        .toArray()
        .map((c) => c.name);
      if (keys.includes("claim_id")) this.sql.exec("ALTER TABLE settlements RENAME COLUMN claim_id TO hold_id");
    }
    this.sql.exec(`CREATE TABLE IF NOT EXISTS holds (
      id TEXT PRIMARY KEY, state TEXT NOT NULL, token TEXT, expires_at INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS settlements (
      hold_id TEXT PRIMARY KEY, endpoint TEXT NOT NULL, amount TEXT NOT NULL, currency TEXT NOT NULL,
      currency_symbol TEXT NOT NULL, method TEXT NOT NULL, payer TEXT, reference TEXT NOT NULL,
      settled_at INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    // Added after the first deployments: objects created before it get the column here.
    const columns = this.sql
      .exec<{ name: string }>("PRAGMA table_info(holds)")
      .toArray()
      .map((c) => c.name);
    if (!columns.includes("unbilled_runs"))
      this.sql.exec("ALTER TABLE holds ADD COLUMN unbilled_runs INTEGER NOT NULL DEFAULT 0");
    if (!columns.includes("unbilled_since")) this.sql.exec("ALTER TABLE holds ADD COLUMN unbilled_since INTEGER");
  }

  /**
   * Holds a credential until `expiresAt` (the credential's own expiry, so a hold never lapses
   * while the credential could still be presented). A hold whose holder vanished without
   * releasing it therefore blocks the credential until it expires: never a second settlement.
   */
  hold(id: string, expiresAt: number, now = Date.now()): HoldOutcome {
    const row = this.sql
      .exec<{ state: string; expires_at: number; unbilled_runs: number; unbilled_since: number | null }>(
        "SELECT state, expires_at, unbilled_runs, unbilled_since FROM holds WHERE id = ?",
        id,
      )
      .toArray()[0];
    if (row?.state === "spent") return { status: "spent" };
    if (row?.state === "held" && row.expires_at > now) return { status: "busy" };
    // A row without unbilled_since is past any window.
    const windowEnds = (row?.unbilled_since ?? -Infinity) + UNBILLED_RUN_WINDOW_MS;
    if (row && row.unbilled_runs >= MAX_UNBILLED_RUNS && windowEnds > now) {
      return {
        status: "unbilled_limit",
        runs: row.unbilled_runs,
        retryAfterSeconds: Math.max(1, Math.ceil((windowEnds - now) / 1000)),
      };
    }
    const token = crypto.randomUUID();
    this.sql.exec(
      "INSERT INTO holds (id, state, token, expires_at) VALUES (?, 'held', ?, ?) ON CONFLICT(id) DO UPDATE SET state = 'held', token = excluded.token, expires_at = excluded.expires_at",
      id,
      token,
      expiresAt,
    );
    this.scheduleSweep(expiresAt);
    return { status: "held", token };
  }

  /**
   * Gives the credential back (no charge happened); only the holder of the hold can. `ranUnbilled`
   * counts a capability call that ran and ended unbilled against MAX_UNBILLED_RUNS in the current
   * window (a run after the window closed opens a new one); releases for the service's own faults
   * (ledger, payment provider) do not count.
   */
  release(id: string, token: string, ranUnbilled = false, now = Date.now()): boolean {
    if (!ranUnbilled)
      return (
        this.sql.exec(
          "UPDATE holds SET state = 'released', token = NULL WHERE id = ? AND state = 'held' AND token = ?",
          id,
          token,
        ).rowsWritten > 0
      );
    return (
      this.sql.exec(
        `UPDATE holds SET state = 'released', token = NULL,
           unbilled_runs = CASE WHEN unbilled_since IS NULL OR ?1 - unbilled_since >= ?2 THEN 1 ELSE unbilled_runs + 1 END,
           unbilled_since = CASE WHEN unbilled_since IS NULL OR ?1 - unbilled_since >= ?2 THEN ?1 ELSE unbilled_since END
         WHERE id = ?3 AND state = 'held' AND token = ?4`,
        now,
        UNBILLED_RUN_WINDOW_MS,
        id,
        token,
      ).rowsWritten > 0
    );
  }

  /** Marks the hold spent and writes the ledger row, together. False if the hold was not ours. */
  settle(token: string, entry: SettlementEntry, now = Date.now()): { settled: boolean; settledAt: number } {
    const held = this.sql
      .exec("SELECT 1 FROM holds WHERE id = ? AND state = 'held' AND token = ?", entry.holdId, token)
      .toArray();
    if (!held.length) return { settled: false, settledAt: now };
    this.sql.exec("UPDATE holds SET state = 'spent', token = NULL WHERE id = ?", entry.holdId);
    this.sql.exec(
      `INSERT INTO settlements (hold_id, endpoint, amount, currency, currency_symbol, method, payer, reference, settled_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      entry.holdId,
      entry.endpoint,
      entry.amount,
      entry.currency,
      entry.currencySymbol,
      entry.method,
      entry.payer,
      entry.reference,
      now,
    );
    return { settled: true, settledAt: now };
  }

  settlement(holdId: string): SettlementRecord | null {
    const row = this.sql
      .exec<Record<string, string | number | null>>("SELECT * FROM settlements WHERE hold_id = ?", holdId)
      .toArray()[0];
    return row ? toRecord(row) : null;
  }

  settlements(limit = 100): SettlementRecord[] {
    return this.sql
      .exec<Record<string, string | number | null>>("SELECT * FROM settlements ORDER BY settled_at DESC LIMIT ?", limit)
      .toArray()
      .map(toRecord);
  }

  // mppx Store backing (Tempo replay markers). Values are JSON text.
  kvGet(key: string): string | null {
    return this.sql.exec<{ value: string }>("SELECT value FROM kv WHERE key = ?", key).toArray()[0]?.value ?? null;
  }

  kvPut(key: string, value: string): void {
    this.sql.exec(
      "INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
  }

  kvDelete(key: string): void {
    this.sql.exec("DELETE FROM kv WHERE key = ?", key);
  }

  /** Writes `next` (or deletes on null) only if the stored value is still `expected`. */
  kvCompareAndSet(key: string, expected: string | null, next: string | null): boolean {
    if (this.kvGet(key) !== expected) return false;
    if (next === null) this.kvDelete(key);
    else this.kvPut(key, next);
    return true;
  }

  override async alarm(): Promise<void> {
    // Holds are only needed while their credential could still be presented; settlements stay.
    const now = Date.now();
    this.sql.exec("DELETE FROM holds WHERE expires_at <= ?", now);
    const next = this.sql.exec<{ at: number | null }>("SELECT MIN(expires_at) AS at FROM holds").toArray()[0]?.at;
    if (next) await this.ctx.storage.setAlarm(next + 1000);
  }

  private scheduleSweep(expiresAt: number) {
    void this.ctx.storage.getAlarm().then((current) => {
      if (current === null || current > expiresAt + 1000) return this.ctx.storage.setAlarm(expiresAt + 1000);
    });
  }
}

function toRecord(row: Record<string, string | number | null>): SettlementRecord {
  return {
    holdId: String(row.hold_id),
    endpoint: String(row.endpoint),
    amount: String(row.amount),
    currency: String(row.currency),
    currencySymbol: String(row.currency_symbol),
    method: String(row.method),
    payer: row.payer === null ? null : String(row.payer),
    reference: String(row.reference),
    settledAt: Number(row.settled_at),
  };
}

/** Number of ledger objects holds are spread over (each object takes ~1,000 requests/s). */
export const LEDGER_SHARDS = 8;

/** The ledger object that owns a credential id (stable: the same id always maps to the same shard). */
export function ledgerFor(ns: DurableObjectNamespace<PaymentLedger>, key: string): DurableObjectStub<PaymentLedger> {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) >>> 0;
  return ns.get(ns.idFromName(`payments-${h % LEDGER_SHARDS}`));
}
