import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";
import { isolateClient } from "../limits/limiter-client.js";
import type { SettlementOutcome } from "../limits/limiter-messages.js";
import { BILLING_RESEND_MS, ChunkBillings } from "./chunk-billing.js";
import { ChunkClaims } from "./chunk-claims.js";
import {
  chunkPlan,
  countDownload,
  createdState,
  failedForChunk,
  passedMilestone,
  setArchived,
  startRun,
} from "./job-lifecycle.js";
import {
  type ChunkBilling,
  type ChunkPlan,
  type HistoryEvent,
  invalidState,
  jobError,
  type RowRecord,
} from "./job-records.js";
import { JobRun, type JobRunHost } from "./job-run.js";
import { JobStore } from "./job-store.js";
import { type JobInit, type JobState, type JobView, renderJob } from "./job-view.js";
import { resultPart } from "./result-part.js";
import { type InputRow, inputChunkKey, resultPartKey } from "./storage.js";

export { JOB_ERROR, jobError, type RowRecord } from "./job-records.js";

/** How long a sent chunk may go without being started or finished before the alarm sends it again (BULK_CHUNK_CLAIM_SECONDS). */
const DEFAULT_CLAIM_MS = 5 * 60_000;
/** After a job ends, the alarm makes sure its index row and end event went out. */
const ENDING_CHECK_MS = 30_000;

// The index row (drizzle, the D1 schema) and the end event (the delivery system) are imported on
// first use: this class is exported by the Worker's entry module, so its static imports are
// evaluated whenever an isolate starts, for requests that never touch a bulk job.
const syncIndex = async (...args: Parameters<typeof import("./jobs-table.js").syncIndex>) =>
  (await import("./jobs-table.js")).syncIndex(...args);
const notifyJobEnd = async (...args: Parameters<typeof import("./end-event.js").notifyJobEnd>) =>
  (await import("./end-event.js")).notifyJobEnd(...args);

/**
 * One per bulk job (SQLite-backed). It alone decides the job's state: every action checks the
 * current status here, row results are kept by row index (so a redelivered queue batch never
 * records or bills a row twice), and each decision is one storage transaction.
 */
export class BulkJob extends DurableObject<Env> {
  private job: JobState | undefined;
  private sql: SqlStorage;
  private readonly billings: ChunkBillings;
  private readonly rows: JobStore;
  private readonly claims: ChunkClaims;
  private readonly run: JobRun;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.billings = new ChunkBillings(this.sql);
    this.rows = new JobStore(this.sql);
    this.claims = new ChunkClaims(this.sql);
    this.run = new JobRun(this.runHost());
    ctx.blockConcurrencyWhile(async () => {
      this.rows.migrate();
      this.job = this.rows.loadState<JobState>() ?? undefined;
      // A job that was running (or ending, or still billing) when its object went away keeps an alarm; one that lost it gets one.
      if (
        this.job &&
        (this.job.status === "running" || this.job.ending || this.billings.owed()) &&
        (await ctx.storage.getAlarm()) === null
      )
        await ctx.storage.setAlarm(Date.now() + 1_000);
    });
  }

  // ---- lifecycle -------------------------------------------------------------------------

  async init(init: JobInit, actorId: number): Promise<JobView> {
    if (this.job) throw invalidState("This job already exists.");
    this.job = createdState(init);
    this.save();
    this.rows.event(
      "created",
      "user",
      actorId,
      `Created with ${init.counts.input} rows`,
      { rows: init.counts.input, source: init.config.input.source },
      init.createdAt,
    );
    return this.view(init.createdAt);
  }

  /** pending -> running: sends one queue message per input chunk. */
  async launch(now: number, actorId: number): Promise<JobView> {
    const job = this.mustExist();
    startRun(job, now, "launch");
    this.claims.clear();
    this.rows.event("launched", "user", actorId, null, { run: job.run }, now);
    await this.dispatch(now);
    return this.view(now);
  }

  /** failed | cancelled -> running again, for the rows not finished yet. */
  async retry(now: number, actorId: number): Promise<JobView> {
    const job = this.mustExist();
    startRun(job, now, "retry");
    this.claims.clear();
    this.rows.event(
      "retried",
      "user",
      actorId,
      null,
      { run: job.run, rows_left: job.counts.input - this.rows.processedCount() },
      now,
    );
    await this.dispatch(now);
    return this.view(now);
  }

  async cancel(now: number, actorId: number): Promise<JobView> {
    const job = this.mustExist();
    if (job.status !== "pending" && job.status !== "running")
      throw invalidState(`This job is ${job.status}; only a pending or running job can be cancelled.`);
    job.status = "cancelled";
    job.cancelledAt = now;
    this.rows.event("cancelled", "user", actorId, null, { processed: this.rows.processedCount() }, now);
    await this.ended(now);
    return this.view(now);
  }

  async archive(now: number, actorId: number): Promise<JobView> {
    setArchived(this.mustExist(), true);
    return this.changed("archived", actorId, null, now);
  }

  async restore(now: number, actorId: number): Promise<JobView> {
    setArchived(this.mustExist(), false);
    return this.changed("restored", actorId, null, now);
  }

  async rename(name: string, now: number, actorId: number): Promise<JobView> {
    const job = this.mustExist();
    const from = job.name;
    job.name = name;
    return this.changed("renamed", actorId, { from, to: name }, now);
  }

  /** A user's change of the job that leaves its run alone: kept, in its history, and in the index row. */
  private async changed(event: string, actorId: number, meta: unknown, now: number): Promise<JobView> {
    this.save();
    this.rows.event(event, "user", actorId, null, meta, now);
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
  async download(
    now: number,
    actorId: number,
    file: string,
  ): Promise<{ prefix: string; chunks: number; header: string[]; resultWidth: number; name: string }> {
    const job = this.mustExist();
    countDownload(job, now, this.rows.processedCount() > 0, (since) => this.rows.downloadsSince(since));
    this.save();
    this.rows.event("downloaded", "user", actorId, null, { file, downloads: job.downloads }, now);
    return {
      prefix: job.prefix,
      chunks: job.chunks,
      header: [...job.header, ...job.resultHeader],
      resultWidth: job.resultHeader.length,
      name: job.name,
    };
  }

  // ---- rows (called by the queue consumer) -----------------------------------------------

  /**
   * Whether a chunk should run now (right run, job running, not finished) and which of its rows are
   * done. The delivery gets the chunk's next fencing token: from now on only it may record the
   * chunk's rows (an earlier delivery still running is fenced off), and its claim runs from now
   * (the alarm sends the chunk again if it is neither renewed nor finished in time).
   */
  /** The job's state, for the calls that only run once it exists (after init). */
  private state(): JobState {
    if (!this.job) throw new Error("the bulk job has no state: it was never created, or it was deleted");
    return this.job;
  }

  beginChunk(run: number, chunk: number): ChunkPlan {
    const job = this.job;
    if (job?.status !== "running" || job.run !== run) return { go: false };
    const finished = this.claims.isFinished(chunk);
    if (finished) return { go: false };
    const due = Date.now() + this.claimMs();
    const token = this.claims.begin(chunk, run, due);
    return chunkPlan(job, this.rows.doneIn(chunk), token, this.claimMs());
  }

  /** Renews a running delivery's claim; false when another delivery holds the chunk now (or it ended). */
  renewChunk(run: number, chunk: number, token: number): boolean {
    const job = this.job;
    if (job?.status !== "running" || job.run !== run) return false;
    return this.claims.renew(chunk, run, token, Date.now() + this.claimMs());
  }

  /**
   * Keeps a chunk's results in one transaction, with what its found rows cost (`billing`, to be
   * decided by the account's limiter): only from the delivery holding the chunk's latest token, so
   * exactly one delivery records and bills. Row indexes already recorded are ignored. Answers the
   * indexes that were new, and the billing's id (billingDecided takes its decision). A delivery
   * told to stop (`go` false) may give its reservation back only when `release` says so: another
   * delivery of the same rows shares it (one admission key), and when that delivery recorded a
   * billing not decided yet, the billing still needs the reservation (the job sends it itself).
   */
  recordRows(
    run: number,
    chunk: number,
    token: number,
    rows: RowRecord[],
    billing?: ChunkBilling,
  ): { go: boolean; fenced: boolean; recorded: number[]; billingId: number | null; release: boolean } {
    const job = this.job;
    if (job?.status !== "running" || job.run !== run) {
      return {
        go: false,
        fenced: false,
        recorded: [],
        billingId: null,
        release: !this.billings.holds(billing?.settlement.reservationIds ?? []),
      };
    }
    const holder = this.claims.token(chunk, run);
    if (holder !== token) return { go: true, fenced: true, recorded: [], billingId: null, release: false };
    return this.ctx.storage.transactionSync(() => {
      const recorded = rows.filter((row) => this.rows.insertRow(chunk, row, Date.now())).map((row) => row.idx);
      const billingId = billing ? this.billings.record(chunk, billing, Date.now()) : null;
      return { go: true, fenced: false, recorded, billingId, release: false };
    });
  }

  /**
   * The limiter decided a chunk's billing: each row it covers is set to what its request was
   * charged (nothing when it was not billed). Taking a decision twice changes nothing.
   */
  async billingDecided(billingId: number, outcome: SettlementOutcome): Promise<void> {
    const changed = this.ctx.storage.transactionSync(() => this.billings.decide(billingId, outcome));
    if (changed && this.job) await syncIndex(this.env, this.view(Date.now()));
  }

  /** Credits ran out mid-job: the job stops as failed and can be retried after a top-up. */
  async stopForCredits(run: number, message: string, now: number): Promise<void> {
    const job = this.job;
    if (job?.status !== "running" || job.run !== run) return;
    const processed = this.rows.processedCount();
    job.status = "failed";
    job.completedAt = now;
    job.errorMessage = `Stopped after ${processed} of ${job.counts.input} rows: ${message} Top up, then retry the job; finished rows are kept and not billed again.`;
    this.rows.event("failed", "system", null, job.errorMessage, { processed, reason: "credits" }, now);
    await this.ended(now);
  }

  /** A chunk's message was dead-lettered (it kept failing): the job fails and can be retried. */
  async failChunk(run: number, chunk: number, now: number): Promise<void> {
    const job = this.job;
    if (job?.status !== "running" || job.run !== run) return;
    failedForChunk(this.state(), chunk, "dead_letter", now, (...e) => this.rows.event(...e));
    await this.ended(now);
  }

  /** Writes the chunk's result part (rows in order) and completes the job after its last chunk. */
  async finishChunk(run: number, chunk: number, now: number): Promise<{ completed: boolean }> {
    const job = this.job;
    if (job?.status !== "running" || job.run !== run) return { completed: false };
    if (this.claims.isFinished(chunk)) return { completed: false };
    const input = await this.env.BULK_FILES.get(inputChunkKey(job.prefix, chunk));
    if (!input) throw new Error(`input chunk ${chunk} of job ${job.id} is missing`);
    const inputRows = (await input.json()) as InputRow[];
    const part = resultPart(job, chunk, inputRows, this.rows.recordedIn(chunk));
    await this.env.BULK_FILES.put(resultPartKey(job.prefix, chunk), part.map((p) => JSON.stringify(p)).join("\n"));
    // The run may have moved on while the part was written (cancelled, failed, retried).
    if (this.job !== job || job.status !== "running" || job.run !== run) return { completed: false };
    if (this.claims.isFinished(chunk)) return { completed: false };
    this.claims.finish(chunk, run, now);
    const doneChunks = this.claims.finishedCount();
    const processed = this.rows.processedCount();
    const milestone = doneChunks < job.chunks ? passedMilestone(job, processed) : null;
    if (milestone)
      this.rows.event("progress", "system", null, `${milestone}% processed`, { percent: milestone, processed }, now);
    if (doneChunks >= job.chunks) {
      await this.complete(now);
      return { completed: true };
    }
    // The next chunk takes this one's place in the window.
    await this.dispatch(now);
    return { completed: false };
  }

  // ---- reads -----------------------------------------------------------------------------

  /** The answers of some rows (a download fills duplicate rows with their original row's answer). */
  answersOf(idxs: number[]): { idx: number; valid: boolean; cells: string[] }[] {
    return this.rows.answersOf(idxs);
  }

  history(page: number, limit: number): { events: HistoryEvent[]; total: number } {
    this.mustExist();
    return this.rows.history(page, limit);
  }

  read(now: number): JobView {
    this.mustExist();
    return this.view(now);
  }

  /** Rows not finished yet and the credits they can cost at most (each row costs its base price when found). */
  remainingRows(): { rows: number; processed: number; spent: { search: number; verification: number; phone: number } } {
    return this.rows.remaining(this.mustExist().counts.valid_input);
  }

  // ---- internals -------------------------------------------------------------------------

  private mustExist(): JobState {
    if (!this.job) throw jobError(404, "unknown_record", "No bulk job with this id.");
    return this.job;
  }

  private save() {
    this.rows.saveState(this.job);
  }

  private claimMs(): number {
    // BULK_CHUNK_LEASE_SECONDS: the variable's former name, still read.
    const seconds = Number(this.env.BULK_CHUNK_CLAIM_SECONDS ?? this.env.BULK_CHUNK_LEASE_SECONDS);
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_CLAIM_MS;
  }

  /** The job's own liveness (chunks sent again, owed billings sent): see JobRun.alarm. */
  override async alarm() {
    if (this.job) await this.run.alarm(Date.now());
  }

  private dispatch(now: number) {
    return this.run.dispatch(now);
  }

  /** What the run needs of this object (storage and the job's state changes). */
  private runHost(): JobRunHost {
    const object = this;
    return {
      // Read when used: a test (or a later change) may give the object another env.
      get env() {
        return object.env;
      },
      storage: this.ctx.storage,
      claims: this.claims,
      billings: this.billings,
      rows: this.rows,
      client: isolateClient(),
      waitUntil: (p) => this.ctx.waitUntil(p),
      state: () => this.state(),
      save: () => this.save(),
      claimMs: () => this.claimMs(),
      publish: (now) => syncIndex(this.env, this.view(now)),
      billingDecided: (id, outcome) => this.billingDecided(id, outcome),
      complete: (now) => this.complete(now),
      ended: (now) => this.ended(now),
    };
  }

  private async complete(now: number) {
    const job = this.state();
    job.status = "completed";
    job.completedAt = now;
    this.rows.event("completed", "system", null, null, { processed: this.rows.processedCount() }, now);
    await this.ended(now);
  }

  /**
   * Completed, failed or cancelled: the claims go, the index row is rewritten and the end event
   * queued. `ending` (written with the status) and a short alarm make sure both happen even if the
   * object goes away in between.
   */
  private async ended(now: number) {
    const job = this.state();
    job.ending = true;
    this.claims.clear();
    this.save();
    await this.ctx.storage.setAlarm(now + ENDING_CHECK_MS);
    const view = this.view(now);
    await syncIndex(this.env, view);
    if (job.config.webhook || job.config.notify)
      await notifyJobEnd(
        this.env,
        { accountId: job.accountId, webhookUrl: job.config.webhook?.url ?? null, notify: job.config.notify },
        view,
      );
    job.ending = false;
    this.save();
    // The alarm stays while a chunk's billing is undecided (see sendOwedBilling).
    if (this.billings.owed()) await this.ctx.storage.setAlarm(now + BILLING_RESEND_MS);
    else await this.ctx.storage.deleteAlarm();
    this.run.disarm();
  }

  private view(now: number): JobView {
    const job = this.state();
    const ended = job.status === "completed" || job.status === "failed" || job.status === "cancelled";
    return renderJob(job, this.rows.aggregate(), now, ended ? this.rows.preview(job.resultHeader) : undefined);
  }
}
