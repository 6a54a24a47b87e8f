import type { Env } from "../env.js";
import type { LimiterClient } from "../limits/limiter-client.js";
import type { SettlementOutcome } from "../limits/limiter-messages.js";
import { BILLING_RESEND_MS, type ChunkBillings } from "./chunk-billing.js";
import type { ChunkClaims } from "./chunk-claims.js";
import { failedForChunk, MAX_SENDS } from "./job-lifecycle.js";
import type { JobStore } from "./job-store.js";
import type { JobState } from "./job-view.js";
import type { BulkRowsMessage } from "./messages.js";

/**
 * Chunks of a run that are on the queue or being worked on at once. The rest go out as these
 * finish, so each chunk is sent when a consumer can take it soon, and a claim (below) that runs
 * out means the chunk was lost, not that it waited its turn.
 */
export const CHUNKS_IN_FLIGHT = 16;

/** What a job's run (sending chunks, watching their claims, sending owed billings) needs of its object. */
export interface JobRunHost {
  readonly env: Env;
  readonly storage: DurableObjectStorage;
  readonly claims: ChunkClaims;
  readonly billings: ChunkBillings;
  readonly rows: JobStore;
  /** The isolate's limiter client: an owed billing goes the way a delivery sends it (settleNow). */
  readonly client: LimiterClient;
  waitUntil(promise: Promise<unknown>): void;
  /** The job's state (the run only works on a job that exists). */
  state(): JobState;
  save(): void;
  claimMs(): number;
  /** Rewrites the job's index row from its current view. */
  publish(now: number): Promise<void>;
  billingDecided(billingId: number, outcome: SettlementOutcome): Promise<void>;
  complete(now: number): Promise<void>;
  ended(now: number): Promise<void>;
}

/** A bulk job's run: the chunks it sends and the alarm that keeps it alive. */
export class JobRun {
  /** This instance knows the alarm is set for the current run (reset when the run ends). */
  private alarmArmed = false;

  constructor(private readonly host: JobRunHost) {}

  /** The run ended: the next run arms the alarm again. */
  disarm() {
    this.alarmArmed = false;
  }

  /**
   * Fills the run's window: claims the next unfinished chunks (up to CHUNKS_IN_FLIGHT in flight)
   * and sends them, in one storage write, then the messages. A send that fails leaves its claims
   * to run out: the alarm sends those chunks again.
   */
  async dispatch(now: number) {
    const host = this.host;
    const job = host.state();
    const { picked, cursor } = host.claims.pick(job.cursor ?? 0, job.chunks, CHUNKS_IN_FLIGHT);
    job.cursor = cursor;
    const due = now + host.claimMs();
    host.claims.claim(picked, job.run, due);
    host.save();
    // The alarm watches the claims while the job runs; it is set once per run and re-arms itself.
    if (!this.alarmArmed) {
      if ((await host.storage.getAlarm()) === null) await host.storage.setAlarm(due);
      this.alarmArmed = true;
    }
    await this.send(picked);
    await host.publish(now);
  }

  private async send(chunks: number[]) {
    const job = this.host.state();
    const messages: MessageSendRequest<BulkRowsMessage>[] = chunks.map((chunk) => ({
      body: { jobId: job.id, chunk, run: job.run },
      contentType: "json",
    }));
    for (let i = 0; i < messages.length; i += 100) await this.host.env.BULK_QUEUE.sendBatch(messages.slice(i, i + 100));
  }

  /**
   * Sends the account's limiter the billings no delivery brought to it (the delivery died after
   * recording its rows), and takes the decisions. Harmless twice: a settlement is decided once.
   * Answers whether a billing is still owed.
   */
  async sendOwedBilling(now: number): Promise<boolean> {
    const { billings, env } = this.host;
    const entries = billings.due(now);
    if (!entries.length) return billings.owed();
    const { accountId } = this.host.state();
    for (const e of entries) {
      const decided = await this.host.client.settleNow(env, accountId, e.plan, e.settlement, this.host.waitUntil);
      // Not decided within the drain budget (the limiter unreachable): still owed, sent again later.
      if (!decided) break;
      await this.host.billingDecided(e.id, decided);
    }
    return billings.owed();
  }

  /**
   * The job's own liveness. While it runs: chunks whose claim ran out (sent but neither started nor
   * finished in time: a lost message, a consumer that died, a server restart) are sent again, exactly
   * those, and the window is refilled; a chunk sent MAX_SENDS times fails the job. After it ends: the
   * index row and end event go out if the object went away before they did. Rows already recorded
   * are never run or billed again (recordRows keeps the first result of each row).
   */
  async alarm(now: number) {
    const host = this.host;
    const job = host.state();
    // Billings a dead delivery left undecided go to the limiter first, whatever the job's state.
    const billingLeft = await this.sendOwedBilling(now);
    if (job.status !== "running") {
      host.claims.clear();
      if (job.ending) await host.ended(now);
      else if (billingLeft) await host.storage.setAlarm(now + BILLING_RESEND_MS);
      return;
    }
    // Every chunk finished but the job was not completed (the object went away in between).
    if (host.claims.finishedCount() >= job.chunks) {
      await host.complete(now);
      return;
    }
    const overdue = host.claims.overdue(now);
    const given = overdue.find((l) => l.sends >= MAX_SENDS);
    if (given) {
      failedForChunk(job, given.chunk, "claim", now, (...e) => host.rows.event(...e));
      await host.ended(now);
      return;
    }
    if (overdue.length) {
      const chunks = overdue.map((l) => l.chunk);
      // Sent before the claims are renewed: if sending fails, the alarm throws and the runtime retries it.
      await this.send(chunks);
      host.claims.resent(chunks, now + host.claimMs());
      host.rows.event(
        "requeued",
        "system",
        null,
        `${chunks.length} chunk${chunks.length === 1 ? "" : "s"} not finished in time sent again`,
        { chunks, run: job.run },
        now,
      );
    }
    await this.dispatch(now);
    const next = host.claims.firstDue();
    await host.storage.setAlarm(
      Math.min(next ?? now + host.claimMs(), billingLeft ? now + BILLING_RESEND_MS : Infinity),
    );
  }
}
