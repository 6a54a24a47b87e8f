import { and, count, eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { bulkJobs } from "../db/schema-bulk.js";
import type { Env } from "../env.js";
import { ApiError } from "../http/errors.js";
import { limiterFor } from "../limits/admission.js";
import type { JobView } from "./job-view.js";
import { jobStub, onJob } from "./jobs.js";
import { type BulkType, MAX_RUNNING_PER_TYPE } from "./types.js";

/** Seconds a caller is told to wait when too many jobs of a type are running. */
const RUNNING_RETRY_AFTER = 60;

export interface LaunchContext {
  accountId: number;
  plan: string;
  actorId: number;
}

/** Why a job cannot start now (429 rate_limit or 402 quota_exceeded), or null. */
export async function launchRefusal(env: Env, type: BulkType, ctx: LaunchContext): Promise<ApiError | null> {
  const [row] = await db(env.DB)
    .select({ n: count() })
    .from(bulkJobs)
    .where(and(eq(bulkJobs.accountId, ctx.accountId), eq(bulkJobs.type, type.type), eq(bulkJobs.status, "running")));
  if ((row?.n ?? 0) >= MAX_RUNNING_PER_TYPE) {
    return new ApiError(
      429,
      "rate_limit",
      `${MAX_RUNNING_PER_TYPE} ${type.type} jobs are already running; launch this one when one of them ends.`,
      { "Retry-After": String(RUNNING_RETRY_AFTER) },
    );
  }
  const cost = type.capability.cost;
  if (cost) {
    const balances = await limiterFor(env, ctx.accountId).balances(ctx.plan);
    const available = balances[cost.balance].available;
    if (available < cost.amount) {
      return new ApiError(
        402,
        "quota_exceeded",
        `Insufficient ${cost.balance} quota: ${available} credits left. Buy credits or upgrade your plan, then launch the job.`,
      );
    }
  }
  return null;
}

/** Launch (or retry) after the account-level checks; the job's object checks its own state. */
export async function startJob(
  env: Env,
  type: BulkType,
  jobId: number,
  ctx: LaunchContext,
  how: "launch" | "retry",
  now = Date.now(),
): Promise<JobView> {
  const job = jobStub(env, jobId);
  // State first: a job that cannot move answers 409 whatever the account's limits.
  const current = await onJob(job.read(now));
  const allowed =
    how === "launch" ? current.status === "pending" : current.status === "failed" || current.status === "cancelled";
  if (allowed && !current.expired && !current.archived) {
    const refusal = await launchRefusal(env, type, ctx);
    if (refusal) throw refusal;
  }
  return onJob(how === "launch" ? job.launch(now, ctx.actorId) : job.retry(now, ctx.actorId));
}
