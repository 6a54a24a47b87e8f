import { rfc3339 } from "../platform/time.js";
import type { HistoryEvent, RowRecord } from "./job-records.js";
import type { Aggregate } from "./job-view.js";
import type { RowOutcome } from "./storage.js";

/**
 * A bulk job's tables (its object's SQLite storage): the job's state, the rows' results, the
 * finished chunks, the history, the chunks' claims and billings. The schema is versioned (table
 * `schema_version`): migrate() runs the migrations the object has not run yet, in order, once.
 */
const MIGRATIONS: ((sql: SqlStorage) => void)[] = [
  // 1: the tables.
  (sql) => {
    sql.exec(`CREATE TABLE IF NOT EXISTS job (k INTEGER PRIMARY KEY CHECK (k = 1), state TEXT NOT NULL)`);
    sql.exec(
      `CREATE TABLE IF NOT EXISTS rows (idx INTEGER PRIMARY KEY, chunk INTEGER NOT NULL, outcome TEXT NOT NULL, valid INTEGER NOT NULL, cells TEXT NOT NULL, error TEXT, emails INTEGER NOT NULL, c_search INTEGER NOT NULL, c_verify INTEGER NOT NULL, c_phone INTEGER NOT NULL, at INTEGER NOT NULL)`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS chunks (chunk INTEGER PRIMARY KEY, run INTEGER NOT NULL, at INTEGER NOT NULL)`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS history (id INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL, actor TEXT NOT NULL, user_id INTEGER, message TEXT, meta TEXT, at INTEGER NOT NULL)`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS leases (chunk INTEGER PRIMARY KEY, run INTEGER NOT NULL, due INTEGER NOT NULL, sends INTEGER NOT NULL, token INTEGER NOT NULL DEFAULT 0)`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS billing (id INTEGER PRIMARY KEY AUTOINCREMENT, chunk INTEGER NOT NULL, plan TEXT NOT NULL, settlement TEXT NOT NULL, rows TEXT NOT NULL, at INTEGER NOT NULL)`,
    );
  },
  // 2: tables made before rows carried a reason code, and before chunk outcomes were fenced.
  (sql) => {
    const columns = (table: string) =>
      sql
        .exec<{ name: string }>(`PRAGMA table_info(${table})`)
        .toArray()
        .map((c) => c.name);
    if (!columns("rows").includes("reason")) sql.exec(`ALTER TABLE rows ADD COLUMN reason TEXT`);
    if (!columns("leases").includes("token"))
      sql.exec(`ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0`);
  },
  // 3: a chunk's hold on its delivery is a claim ("lease" is the limiter's credits set aside for an isolate).
  (sql) => {
    sql.exec(`ALTER TABLE leases RENAME TO claims`);
  },
];

export class JobStore {
  constructor(private readonly sql: SqlStorage) {}

  /** Brings the tables to the current schema (call once, before anything else reads them). */
  migrate(): void {
    const sql = this.sql;
    sql.exec(
      `CREATE TABLE IF NOT EXISTS schema_version (k INTEGER PRIMARY KEY CHECK (k = 1), version INTEGER NOT NULL)`,
    );
    const [row] = sql.exec<{ version: number }>(`SELECT version FROM schema_version WHERE k = 1`).toArray();
    const from = row?.version ?? 0;
    if (from >= MIGRATIONS.length) return;
    for (const migration of MIGRATIONS.slice(from)) migration(sql);
    sql.exec(`INSERT OR REPLACE INTO schema_version (k, version) VALUES (1, ?)`, MIGRATIONS.length);
  }

  /** Keeps a row's result; false when its index was recorded before (its first result stays). */
  insertRow(chunk: number, row: RowRecord, now: number): boolean {
    const cursor = this.sql.exec(
      `INSERT OR IGNORE INTO rows (idx, chunk, outcome, reason, valid, cells, error, emails, c_search, c_verify, c_phone, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.idx,
      chunk,
      row.outcome,
      row.reason ?? row.outcome,
      row.valid ? 1 : 0,
      JSON.stringify(row.cells),
      row.error ?? null,
      row.emails,
      row.credits.search ?? 0,
      row.credits.verification ?? 0,
      row.credits.phone ?? 0,
      now,
    );
    return cursor.rowsWritten > 0;
  }

  /** The answers of some rows (a download fills duplicate rows with their original row's answer). */
  answersOf(idxs: number[]): { idx: number; valid: boolean; cells: string[] }[] {
    if (!idxs.length) return [];
    const out: { idx: number; valid: boolean; cells: string[] }[] = [];
    const wanted = [...new Set(idxs)];
    // Bound parameters per statement are limited: ask in slices.
    for (let i = 0; i < wanted.length; i += 90) {
      const slice = wanted.slice(i, i + 90);
      for (const r of this.sql.exec<{ idx: number; valid: number; cells: string }>(
        `SELECT idx, valid, cells FROM rows WHERE idx IN (${slice.map(() => "?").join(",")})`,
        ...slice,
      )) {
        out.push({ idx: r.idx, valid: r.valid === 1, cells: JSON.parse(r.cells) as string[] });
      }
    }
    return out;
  }

  /** Indexes of the rows of `chunk` with a result. */
  doneIn(chunk: number): number[] {
    return this.sql
      .exec<{ idx: number }>(`SELECT idx FROM rows WHERE chunk = ?`, chunk)
      .toArray()
      .map((r) => r.idx);
  }

  /** The results of `chunk`'s rows, in order. */
  recordedIn(chunk: number) {
    return this.sql
      .exec<{ idx: number; outcome: RowOutcome; valid: number; cells: string; error: string | null }>(
        `SELECT idx, outcome, valid, cells, error FROM rows WHERE chunk = ? ORDER BY idx`,
        chunk,
      )
      .toArray();
  }

  /** Rows that ran (found, not found, failed or refused by the capability) and the credits they hold. */
  ran(): { n: number; s: number; v: number; p: number } {
    return this.sql
      .exec<{ n: number; s: number; v: number; p: number }>(
        `SELECT count(*) AS n, coalesce(sum(c_search),0) AS s, coalesce(sum(c_verify),0) AS v, coalesce(sum(c_phone),0) AS p FROM rows WHERE outcome IN ('found','not_found','client_error','server_error') OR reason = 'refused'`,
      )
      .one();
  }

  /** Rows not finished yet of `runnable` and the credits spent so far (GET remaining, the launch's estimate). */
  remaining(runnable: number) {
    const done = this.ran();
    return {
      rows: Math.max(0, runnable - done.n),
      processed: this.processedCount(),
      spent: { search: done.s, verification: done.v, phone: done.p },
    };
  }

  /** Reads the job's state (null before it is created). */
  loadState<T>(): T | null {
    const [row] = this.sql.exec<{ state: string }>(`SELECT state FROM job WHERE k = 1`).toArray();
    return row ? (JSON.parse(row.state) as T) : null;
  }

  saveState(state: unknown): void {
    this.sql.exec(`INSERT OR REPLACE INTO job (k, state) VALUES (1, ?)`, JSON.stringify(state));
  }

  /** Downloads counted since `since` (the daily limit). */
  downloadsSince(since: number): number {
    return this.sql
      .exec<{ n: number }>(`SELECT count(*) AS n FROM history WHERE event = 'downloaded' AND at >= ?`, since)
      .one().n;
  }

  history(page: number, limit: number): { events: HistoryEvent[]; total: number } {
    const total = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM history`).one().n;
    const events = this.sql
      .exec<{
        id: number;
        event: string;
        actor: string;
        user_id: number | null;
        message: string | null;
        meta: string | null;
        at: number;
      }>(`SELECT * FROM history ORDER BY id LIMIT ? OFFSET ?`, limit, (page - 1) * limit)
      .toArray()
      .map((e) => ({
        id: e.id,
        user_id: e.user_id,
        event: e.event,
        actor: e.actor,
        message: e.message,
        meta: e.meta,
        created_at: rfc3339(e.at),
      }));
    return { events, total };
  }

  /** Adds an event to the job's history. */
  event(event: string, actor: string, userId: number | null, message: string | null, meta: unknown, at: number) {
    this.sql.exec(
      `INSERT INTO history (event, actor, user_id, message, meta, at) VALUES (?, ?, ?, ?, ?, ?)`,
      event,
      actor,
      userId,
      message,
      meta === null ? null : JSON.stringify(meta),
      at,
    );
  }

  /** Rows with a result. */
  processedCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM rows`).one().n;
  }

  /** The rows' results counted by outcome and reason, with the emails and credits they hold. */
  aggregate(): Aggregate {
    const groups = this.sql
      .exec<{
        outcome: RowOutcome;
        reason: string | null;
        n: number;
        sample: string | null;
        emails: number;
        s: number;
        v: number;
        p: number;
        lastAt: number | null;
      }>(
        `SELECT outcome, reason, count(*) AS n, min(error) AS sample, sum(emails) AS emails, sum(c_search) AS s, sum(c_verify) AS v, sum(c_phone) AS p, max(at) AS lastAt FROM rows GROUP BY outcome, reason`,
      )
      .toArray();
    const agg: Aggregate = {
      byOutcome: {},
      byReason: [],
      emails: 0,
      credits: { search: 0, verification: 0, phone: 0 },
      lastAt: null,
    };
    for (const g of groups) {
      agg.byOutcome[g.outcome] = (agg.byOutcome[g.outcome] ?? 0) + g.n;
      agg.byReason.push({ outcome: g.outcome, reason: g.reason ?? g.outcome, n: g.n, sample: g.sample });
      agg.emails += g.emails;
      agg.credits.search += g.s;
      agg.credits.verification += g.v;
      agg.credits.phone += g.p;
      agg.lastAt = Math.max(agg.lastAt ?? 0, g.lastAt ?? 0) || null;
    }
    return agg;
  }

  /** The first result rows as objects keyed by column, once the job is billed. */
  preview(resultHeader: readonly string[]): Record<string, string>[] {
    const header = resultHeader;
    return this.sql
      .exec<{ idx: number; outcome: string; cells: string; error: string | null }>(
        `SELECT idx, outcome, cells, error FROM rows ORDER BY idx LIMIT 10`,
      )
      .toArray()
      .map((r) => {
        const cells = JSON.parse(r.cells) as string[];
        const out: Record<string, string> = { row: String(r.idx + 1) };
        for (const [i, h] of header.slice(0, -2).entries()) out[h] = cells[i] ?? "";
        out.bulk_status = r.outcome;
        out.bulk_error = r.error ?? "";
        return out;
      });
  }
}
