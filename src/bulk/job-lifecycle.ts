import { rfc3339 } from "../platform/time.js";
import { DOWNLOADS_PER_JOB_PER_DAY, JOB_VALIDITY_MS } from "./constants.js";
import { type ChunkPlan, invalidState, jobError } from "./job-records.js";
import type { JobInit, JobState } from "./job-view.js";

/**
 * The bulk job's state machine as plain code on its state (job-object.ts stores it): which
 * transitions an action may make, and what each changes. Refusals are 409 invalid_state errors
 * that cross the RPC boundary (job-records.ts).
 */

/** A chunk sent this many times without finishing fails the job (it can be retried). */
export const MAX_SENDS = 5;

/** The state of a job just created: pending, valid JOB_VALIDITY_MS. */
export function createdState(init: JobInit): JobState {
  return {
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
}

/** Refuses an action on a job past its validity. */
export function assertNotExpired(job: JobState, now: number, what: string) {
  if (now >= job.expiredAt)
    throw invalidState(`This job expired at ${rfc3339(job.expiredAt)} and can no longer be ${what}.`);
}

/** A new run: pending -> running (launch), or failed | cancelled -> running again (retry, for the rows not finished). */
export function startRun(job: JobState, now: number, how: "launch" | "retry") {
  assertNotExpired(job, now, how === "launch" ? "launched" : "retried");
  if (how === "launch" && job.status !== "pending")
    throw invalidState(`This job is ${job.status}; only a pending job can be launched.`);
  if (how === "retry" && job.status !== "failed" && job.status !== "cancelled")
    throw invalidState(`This job is ${job.status}; only a failed or cancelled job can be retried.`);
  if (job.archived)
    throw invalidState(`This job is archived; restore it before ${how === "launch" ? "launching" : "retrying"} it.`);
  job.status = "running";
  job.run += 1;
  job.cursor = 0;
  if (how === "launch") job.startedAt = now;
  else {
    job.retryCount += 1;
    job.errorMessage = null;
    job.cancelledAt = null;
    job.completedAt = null;
    job.startedAt ??= now;
  }
}

/** A chunk set aside (dead-lettered, or sent MAX_SENDS times without finishing): the job fails, its rows named. */
export function failedForChunk(
  job: JobState,
  chunk: number,
  reason: "dead_letter" | "claim",
  now: number,
  event: (event: string, actor: string, userId: null, message: string, meta: unknown, at: number) => void,
) {
  job.status = "failed";
  job.completedAt = now;
  const rows = `Rows ${chunk * job.chunkRows + 1} to ${Math.min((chunk + 1) * job.chunkRows, job.counts.input)}`;
  job.errorMessage =
    reason === "dead_letter"
      ? `${rows} kept failing on our side and were set aside. Retry the job to run the unfinished rows again.`
      : `${rows} were sent ${MAX_SENDS} times without finishing and were set aside. Retry the job to run the unfinished rows again.`;
  event("failed", "system", null, job.errorMessage, { chunk, reason }, now);
}

/** Archives (`true`) or restores a job: only an ended job is archived, only an archived one restored. */
export function setArchived(job: JobState, archived: boolean) {
  if (archived && job.archived) throw invalidState("This job is already archived.");
  if (archived && job.status === "running")
    throw invalidState("This job is running; cancel it or wait for it to end before archiving it.");
  if (!archived && !job.archived)
    throw invalidState(`This job is not archived (it is ${job.status}); only an archived job can be restored.`);
  job.archived = archived;
}

/** Checks a download is allowed (an ended job with results, under the daily limit) and counts it. */
export function countDownload(
  job: JobState,
  now: number,
  hasResults: boolean,
  downloadsSince: (since: number) => number,
) {
  assertNotExpired(job, now, "downloaded");
  if (job.status === "pending" || job.status === "running" || !hasResults) {
    throw invalidState(
      `This job is ${job.status}${hasResults ? "" : " with no processed rows"}; results can be downloaded once it has ended.`,
    );
  }
  const today = downloadsSince(Math.floor(now / 86_400_000) * 86_400_000);
  if (today >= DOWNLOADS_PER_JOB_PER_DAY) {
    throw jobError(
      429,
      "rate_limit",
      `This job was downloaded ${today} times today, the daily limit. The counter resets at 00:00 UTC.`,
    );
  }
  job.downloads += 1;
}

const MILESTONES = [25, 50, 75];

/** The progress milestone (25, 50, 75 %) `processed` rows newly pass, kept in the state; null when none. */
export function passedMilestone(job: JobState, processed: number): number | null {
  const percent = Math.floor((processed / Math.max(1, job.counts.input)) * 100);
  const milestone = MILESTONES.filter((m) => percent >= m).at(-1) ?? 0;
  if (milestone <= job.milestone) return null;
  job.milestone = milestone;
  return milestone;
}

/** What a delivery that may run a chunk needs: the job's input, the rows done, its fencing token and claim. */
export function chunkPlan(job: JobState, done: number[], token: number, claimMs: number): ChunkPlan {
  return {
    go: true,
    accountId: job.accountId,
    type: job.type,
    prefix: job.prefix,
    fields: job.fields,
    options: job.config.options,
    done,
    chunkRows: job.chunkRows,
    token,
    claimMs,
  };
}
