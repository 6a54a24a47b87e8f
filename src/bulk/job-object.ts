import { DurableObject } from "cloudflare:workers";
import type { BulkOptionValues } from "../capabilities/core/registry.js";
import type { Env } from "../env.js";
import { rfc3339 } from "../http/time.js";
import type { ErrorCode, StatusOf } from "../http/errors.js";
import { notifyJobEnd } from "./end-event.js";
import { syncIndex } from "./jobs-table.js";
import { type Aggregate, type JobInit, type JobState, type JobStatus, type JobView, renderJob } from "./job-view.js";
import { csvLine, inputChunkKey, resultPartKey, type InputRow, type ResultRow, type RowOutcome } from "./storage.js";
import { DOWNLOADS_PER_JOB_PER_DAY, JOB_VALIDITY_MS } from "./types.js";

/** One processed row, as the consumer reports it. */
export interface RowRecord {
  idx: number;
  outcome: RowOutcome;
  valid: boolean;
  cells: string[];
  error?: string;
  emails: number;
  credits: { search?: number; verification?: number; phone?: number };
}

export interface ChunkPlan {
  go: boolean;
  accountId?: number;
  type?: string;
  prefix?: string;
  fields?: Record<string, number>;
  options?: BulkOptionValues;
  done?: number[];
  chunkRows?: number;
}

export interface HistoryEvent {
  id: number;
  user_id: number | null;
  event: string;
  actor: string;
  message: string | null;
  /** JSON text (parsed by the route: RPC types cannot carry `unknown`). */
  meta: string | null;
  created_at: string;
}

const MILESTONES = [25, 50, 75];
/** Errors cross the RPC boundary as plain Errors: the status and type travel in the message (see jobs.ts). */
export const jobError = <T extends ErrorCode>(status: NoInfer<StatusOf<T>> & (404 | 409 | 429), type: T, message: string) => new Error(`${JOB_ERROR}${status}:${type}:${message}`);
export const JOB_ERROR = "bulk-job-error:";
const invalidState = (message: string) => jobError(409, "invalid_state", message);

/**
 * One per bulk job (SQLite-backed). It alone decides the job's state: every action checks the
 * current status here, row results are kept by row index (so a redelivered queue batch never
 * records or bills a row twice), and each decision is one storage transaction.
 */
export class BulkJob extends DurableObject<Env> {
  private job: JobState | undefined;
  private sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      this.sql.exec(`CREATE TABLE IF NOT EXISTS job (k INTEGER PRIMARY KEY CHECK (k = 1), state TEXT NOT NULL)`);
      this.sql.exec(`CREATE TABLE IF NOT EXISTS rows (idx INTEGER PRIMARY KEY, chunk INTEGER NOT NULL, outcome TEXT NOT NULL, valid INTEGER NOT NULL, cells TEXT NOT NULL, error TEXT, emails INTEGER NOT NULL, c_search INTEGER NOT NULL, c_verify INTEGER NOT NULL, c_phone INTEGER NOT NULL, at INTEGER NOT NULL)`);
      this.sql.exec(`CREATE TABLE IF NOT EXISTS chunks (chunk INTEGER PRIMARY KEY, run INTEGER NOT NULL, at INTEGER NOT NULL)`);
      this.sql.exec(`CREATE TABLE IF NOT EXISTS history (id INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL, actor TEXT NOT NULL, user_id INTEGER, message TEXT, meta TEXT, at INTEGER NOT NULL)`);
      const [row] = this.sql.exec<{ state: string }>(`SELECT state FROM job WHERE k = 1`).toArray();
      if (row) this.job = JSON.parse(row.state) as JobState;
    });
  }

  // ---- lifecycle -------------------------------------------------------------------------

  async init(init: JobInit, actorId: number): Promise<JobView> {
    if (this.job) throw invalidState("This job already exists.");
    this.job = {
      ...init,
      status: "pending",
      archived: false,
      startedAt: null,
      completedAt: null,
      cancelledAt: null,
      expiredAt: init.createdAt + JOB_VALIDITY_MS,
      errorMessage: null,
      retryCount: 0,
      run: 0,
      downloads: 0,
      milestone: 0,
    };
    this.save();
    this.event("created", "user", actorId, `Created with ${init.counts.input} rows`, { rows: init.counts.input, source: init.config.input.source }, init.createdAt);
    return this.view(init.createdAt);
  }

  /** pending -> running: sends one queue message per input chunk. */
  async launch(now: number, actorId: number): Promise<JobView> {
    const job = this.mustExist();
    this.assertNotExpired(now, "launched");
    if (job.status !== "pending") throw invalidState(`This job is ${job.status}; only a pending job can be launched.`);
    if (job.archived) throw invalidState("This job is archived; restore it before launching it.");
    job.status = "running";
    job.startedAt = now;
    job.run += 1;
    this.save();
    this.event("launched", "user", actorId, null, { run: job.run }, now);
    await this.enqueueRemaining(now);
    return this.view(now);
  }

  /** failed | cancelled -> running again, for the rows not finished yet. */
  async retry(now: number, actorId: number): Promise<JobView> {
    const job = this.mustExist();
    this.assertNotExpired(now, "retried");
    if (job.status !== "failed" && job.status !== "cancelled") throw invalidState(`This job is ${job.status}; only a failed or cancelled job can be retried.`);
    if (job.archived) throw invalidState("This job is archived; restore it before retrying it.");
    job.status = "running";
    job.run += 1;
    job.retryCount += 1;
    job.errorMessage = null;
    job.cancelledAt = null;
    job.completedAt = null;
    job.startedAt ??= now;
    this.save();
    this.event("retried", "user", actorId, null, { run: job.run, rows_left: job.counts.input - this.processedCount() }, now);
    await this.enqueueRemaining(now);
    return this.view(now);
  }

  async cancel(now: number, actorId: number): Promise<JobView> {
    const job = this.mustExist();
    if (job.status !== "pending" && job.status !== "running") throw invalidState(`This job is ${job.status}; only a pending or running job can be cancelled.`);
    job.status = "cancelled";
    job.cancelledAt = now;
    this.save();
    this.event("cancelled", "user", actorId, null, { processed: this.processedCount() }, now);
    await this.ended(now);
    return this.view(now);
  }

  async archive(now: number, actorId: number): Promise<JobView> {
    const job = this.mustExist();
    if (job.archived) throw invalidState("This job is already archived.");
    if (job.status === "running") throw invalidState("This job is running; cancel it or wait for it to end before archiving it.");
    job.archived = true;
    this.save();
    this.event("archived", "user", actorId, null, null, now);
    await syncIndex(this.env, this.view(now));
    return this.view(now);
  }

  async restore(now: number, actorId: number): Promise<JobView> {
    const job = this.mustExist();
    if (!job.archived) throw invalidState(`This job is not archived (it is ${job.status}); only an archived job can be restored.`);
    job.archived = false;
    this.save();
    this.event("restored", "user", actorId, null, null, now);
    await syncIndex(this.env, this.view(now));
    return this.view(now);
  }

  async rename(name: string, now: number, actorId: number): Promise<JobView> {
    const job = this.mustExist();
    const from = job.name;
    job.name = name;
    this.save();
    this.event("renamed", "user", actorId, null, { from, to: name }, now);
    await syncIndex(this.env, this.view(now));
    return this.view(now);
  }

  /** Deletes the job's storage; its files and index row are removed by the caller. */
  async remove(now: number): Promise<{ prefix: string }> {
    const job = this.mustExist();
    if (job.status === "running") throw invalidState("This job is running; cancel it before deleting it.");
    const prefix = job.prefix;
    await this.ctx.storage.deleteAll();
    this.job = undefined;
    void now;
    return { prefix };
  }

  /** Checks a download is allowed and counts it; the first one marks the job billed. */
  async download(now: number, actorId: number, file: string): Promise<{ prefix: string; chunks: number; header: string[]; name: string }> {
    const job = this.mustExist();
    this.assertNotExpired(now, "downloaded");
    const hasResults = this.processedCount() > 0;
    if (job.status === "pending" || job.status === "running" || !hasResults) {
      throw invalidState(`This job is ${job.status}${hasResults ? "" : " with no processed rows"}; results can be downloaded once it has ended.`);
    }
    const dayStart = Math.floor(now / 86_400_000) * 86_400_000;
    const today = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM history WHERE event = 'downloaded' AND at >= ?`, dayStart).one().n;
    if (today >= DOWNLOADS_PER_JOB_PER_DAY) {
      throw jobError(429, "rate_limit", `This job was downloaded ${today} times today, the daily limit. The counter resets at 00:00 UTC.`);
    }
    job.downloads += 1;
    this.save();
    this.event("downloaded", "user", actorId, null, { file, downloads: job.downloads }, now);
    return { prefix: job.prefix, chunks: job.chunks, header: [...job.header, ...job.resultHeader], name: job.name };
  }

  // ---- rows (called by the queue consumer) -----------------------------------------------

  /** Whether a chunk should run now (right run, job running, not finished) and which of its rows are done. */
  beginChunk(run: number, chunk: number): ChunkPlan {
    const job = this.job;
    if (!job || job.status !== "running" || job.run !== run) return { go: false };
    const finished = this.sql.exec(`SELECT 1 FROM chunks WHERE chunk = ?`, chunk).toArray().length > 0;
    if (finished) return { go: false };
    const done = this.sql.exec<{ idx: number }>(`SELECT idx FROM rows WHERE chunk = ?`, chunk).toArray().map((r) => r.idx);
    return { go: true, accountId: job.accountId, type: job.type, prefix: job.prefix, fields: job.fields, options: job.config.options, done, chunkRows: job.chunkRows };
  }

  /**
   * Keeps a row's result once: a row index already recorded is ignored (same batch delivered
   * twice). Answers whether the consumer should go on with this run.
   */
  recordRow(run: number, chunk: number, row: RowRecord): { go: boolean; recorded: boolean } {
    const { go, recorded } = this.recordRows(run, chunk, [row]);
    return { go, recorded: recorded.length > 0 };
  }

  /**
   * Keeps a chunk's results in one transaction (one RPC for the rows a consumer ran together); row
   * indexes already recorded are ignored, as in recordRow. Answers the indexes that were new (only
   * those are billed).
   */
  recordRows(run: number, chunk: number, rows: RowRecord[]): { go: boolean; recorded: number[] } {
    const job = this.job;
    if (!job || job.status !== "running" || job.run !== run) return { go: false, recorded: [] };
    return { go: true, recorded: this.ctx.storage.transactionSync(() => rows.filter((row) => this.insertRow(chunk, row)).map((row) => row.idx)) };
  }

  private insertRow(chunk: number, row: RowRecord): boolean {
    const cursor = this.sql.exec(
      `INSERT OR IGNORE INTO rows (idx, chunk, outcome, valid, cells, error, emails, c_search, c_verify, c_phone, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.idx,
      chunk,
      row.outcome,
      row.valid ? 1 : 0,
      JSON.stringify(row.cells),
      row.error ?? null,
      row.emails,
      row.credits.search ?? 0,
      row.credits.verification ?? 0,
      row.credits.phone ?? 0,
      Date.now(),
    );
    return cursor.rowsWritten > 0;
  }

  /** Credits ran out mid-job: the job stops as failed and can be retried after a top-up. */
  async stopForCredits(run: number, message: string, now: number): Promise<void> {
    const job = this.job;
    if (!job || job.status !== "running" || job.run !== run) return;
    const processed = this.processedCount();
    job.status = "failed";
    job.completedAt = now;
    job.errorMessage = `Stopped after ${processed} of ${job.counts.input} rows: ${message} Top up, then retry the job; finished rows are kept and not billed again.`;
    this.save();
    this.event("failed", "system", null, job.errorMessage, { processed, reason: "credits" }, now);
    await this.ended(now);
  }

  /** A chunk's message was dead-lettered (it kept failing): the job fails and can be retried. */
  async failChunk(run: number, chunk: number, now: number): Promise<void> {
    const job = this.job;
    if (!job || job.status !== "running" || job.run !== run) return;
    job.status = "failed";
    job.completedAt = now;
    job.errorMessage = `Rows ${chunk * job.chunkRows + 1} to ${(chunk + 1) * job.chunkRows} kept failing on our side and were set aside. Retry the job to run the unfinished rows again.`;
    this.save();
    this.event("failed", "system", null, job.errorMessage, { chunk, reason: "dead_letter" }, now);
    await this.ended(now);
  }

  /** Writes the chunk's result part (rows in order) and completes the job after its last chunk. */
  async finishChunk(run: number, chunk: number, now: number): Promise<{ completed: boolean }> {
    const job = this.job;
    if (!job || job.status !== "running" || job.run !== run) return { completed: false };
    if (this.sql.exec(`SELECT 1 FROM chunks WHERE chunk = ?`, chunk).toArray().length) return { completed: false };
    const input = await this.env.BULK_FILES.get(inputChunkKey(job.prefix, chunk));
    if (!input) throw new Error(`input chunk ${chunk} of job ${job.id} is missing`);
    const inputRows = (await input.json()) as InputRow[];
    const recorded = new Map(
      this.sql
        .exec<{ idx: number; outcome: RowOutcome; valid: number; cells: string; error: string | null }>(`SELECT idx, outcome, valid, cells, error FROM rows WHERE chunk = ? ORDER BY idx`, chunk)
        .toArray()
        .map((r) => [r.idx, r]),
    );
    const width = job.header.length;
    const resultWidth = job.resultHeader.length - 2;
    const first = chunk * job.chunkRows;
    const part: ResultRow[] = [];
    for (const [i, inputRow] of inputRows.entries()) {
      const r = recorded.get(first + i);
      if (!r) throw new Error(`row ${first + i} of job ${job.id} was not recorded`);
      const cells = JSON.parse(r.cells) as string[];
      const inputCells = Array.from({ length: width }, (_, k) => inputRow.c[k] ?? "");
      const results = Array.from({ length: resultWidth }, (_, k) => cells[k] ?? "");
      part.push({ o: r.outcome, v: r.valid === 1, c: [...inputCells, ...results, r.outcome, r.error ?? ""] });
    }
    await this.env.BULK_FILES.put(resultPartKey(job.prefix, chunk), part.map((p) => JSON.stringify(p)).join("\n"));
    this.sql.exec(`INSERT OR IGNORE INTO chunks (chunk, run, at) VALUES (?, ?, ?)`, chunk, run, now);
    const doneChunks = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM chunks`).one().n;
    const percent = Math.floor((this.processedCount() / Math.max(1, job.counts.input)) * 100);
    const milestone = MILESTONES.filter((m) => percent >= m).at(-1) ?? 0;
    if (milestone > job.milestone && doneChunks < job.chunks) {
      job.milestone = milestone;
      this.event("progress", "system", null, `${milestone}% processed`, { percent: milestone, processed: this.processedCount() }, now);
    }
    if (doneChunks >= job.chunks) {
      job.status = "completed";
      job.completedAt = now;
      this.save();
      this.event("completed", "system", null, null, { processed: this.processedCount() }, now);
      await this.ended(now);
      return { completed: true };
    }
    this.save();
    await syncIndex(this.env, this.view(now));
    return { completed: false };
  }

  // ---- reads -----------------------------------------------------------------------------

  read(now: number): JobView {
    this.mustExist();
    return this.view(now);
  }

  /** Rows not finished yet and the credits they can cost at most (each row costs its base price when found). */
  remainingRows(): { rows: number; processed: number; spent: { search: number; verification: number; phone: number } } {
    const job = this.mustExist();
    const done = this.sql.exec<{ n: number; s: number; v: number; p: number }>(
      `SELECT count(*) AS n, coalesce(sum(c_search),0) AS s, coalesce(sum(c_verify),0) AS v, coalesce(sum(c_phone),0) AS p FROM rows WHERE outcome IN ('found','not_found','client_error','server_error')`,
    ).one();
    const runnable = job.counts.valid_input;
    return { rows: Math.max(0, runnable - done.n), processed: this.processedCount(), spent: { search: done.s, verification: done.v, phone: done.p } };
  }

  history(page: number, limit: number): { events: HistoryEvent[]; total: number } {
    this.mustExist();
    const total = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM history`).one().n;
    const events = this.sql
      .exec<{ id: number; event: string; actor: string; user_id: number | null; message: string | null; meta: string | null; at: number }>(
        `SELECT * FROM history ORDER BY id LIMIT ? OFFSET ?`,
        limit,
        (page - 1) * limit,
      )
      .toArray()
      .map((e) => ({ id: e.id, user_id: e.user_id, event: e.event, actor: e.actor, message: e.message, meta: e.meta, created_at: rfc3339(e.at)! }));
    return { events, total };
  }

  // ---- internals -------------------------------------------------------------------------

  private mustExist(): JobState {
    if (!this.job) throw jobError(404, "unknown_record", "No bulk job with this id.");
    return this.job;
  }

  private assertNotExpired(now: number, what: string) {
    const job = this.mustExist();
    if (now >= job.expiredAt) throw invalidState(`This job expired at ${rfc3339(job.expiredAt)} and can no longer be ${what}.`);
  }

  private save() {
    this.sql.exec(`INSERT OR REPLACE INTO job (k, state) VALUES (1, ?)`, JSON.stringify(this.job));
  }

  private event(event: string, actor: string, userId: number | null, message: string | null, meta: unknown, at: number) {
    this.sql.exec(`INSERT INTO history (event, actor, user_id, message, meta, at) VALUES (?, ?, ?, ?, ?, ?)`, event, actor, userId, message, meta === null ? null : JSON.stringify(meta), at);
  }

  private processedCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM rows`).one().n;
  }

  private async enqueueRemaining(now: number) {
    const job = this.job!;
    const finished = new Set(this.sql.exec<{ chunk: number }>(`SELECT chunk FROM chunks`).toArray().map((r) => r.chunk));
    const messages: MessageSendRequest<{ jobId: number; chunk: number; run: number }>[] = [];
    for (let chunk = 0; chunk < job.chunks; chunk++) if (!finished.has(chunk)) messages.push({ body: { jobId: job.id, chunk, run: job.run }, contentType: "json" });
    for (let i = 0; i < messages.length; i += 100) await this.env.BULK_QUEUE.sendBatch(messages.slice(i, i + 100));
    await syncIndex(this.env, this.view(now));
  }

  /** Completed, failed or cancelled: the index row is rewritten and the end event is queued. */
  private async ended(now: number) {
    const view = this.view(now);
    await syncIndex(this.env, view);
    if (this.job!.config.webhook) await notifyJobEnd(this.env, this.job!.accountId, this.job!.config.webhook.url, view);
  }

  private view(now: number): JobView {
    return renderJob(this.job!, this.aggregate(), now, this.job!.status === "completed" ? this.preview() : undefined);
  }

  private aggregate(): Aggregate {
    const rows = this.sql
      .exec<{ outcome: RowOutcome; n: number; emails: number; s: number; v: number; p: number; firstAt: number | null; lastAt: number | null }>(
        `SELECT outcome, count(*) AS n, sum(emails) AS emails, sum(c_search) AS s, sum(c_verify) AS v, sum(c_phone) AS p, min(at) AS firstAt, max(at) AS lastAt FROM rows GROUP BY outcome`,
      )
      .toArray();
    const agg: Aggregate = { byOutcome: {}, emails: 0, credits: { search: 0, verification: 0, phone: 0 }, lastAt: null };
    for (const r of rows) {
      agg.byOutcome[r.outcome] = r.n;
      agg.emails += r.emails;
      agg.credits.search += r.s;
      agg.credits.verification += r.v;
      agg.credits.phone += r.p;
      agg.lastAt = Math.max(agg.lastAt ?? 0, r.lastAt ?? 0) || null;
    }
    return agg;
  }

  /** The first result rows as objects keyed by column, once the job is billed. */
  private preview(): Record<string, string>[] {
    const job = this.job!;
    const header = job.resultHeader;
    return this.sql
      .exec<{ idx: number; outcome: string; cells: string; error: string | null }>(`SELECT idx, outcome, cells, error FROM rows ORDER BY idx LIMIT 10`)
      .toArray()
      .map((r) => {
        const cells = JSON.parse(r.cells) as string[];
        const out: Record<string, string> = { row: String(r.idx + 1) };
        header.slice(0, -2).forEach((h, i) => (out[h] = cells[i] ?? ""));
        out.bulk_status = r.outcome;
        out.bulk_error = r.error ?? "";
        return out;
      });
  }
}
