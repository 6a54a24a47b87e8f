import type { Env } from "../env.js";
import { ApiError, type ErrorStatus, isErrorCode, statusAllowed } from "../http/errors.js";
import { secondsToUtcMidnight } from "../limits/account-limiter.js";
import { JOB_ERROR } from "./job-object.js";

/** The object of a job, named by its index id. */
export function jobStub(env: Env, jobId: number) {
  return env.BULK_JOB.get(env.BULK_JOB.idFromName(`bulk:${jobId}`));
}

/** Runs a call on a job's object, turning its refusals (404, 409) back into API errors. */
export async function onJob<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    const message = err instanceof Error ? err.message : "";
    const at = message.indexOf(JOB_ERROR);
    if (at < 0) throw err;
    const [status, type, ...rest] = message.slice(at + JOB_ERROR.length).split(":");
    const code = Number(status);
    // The type and status crossed the RPC boundary as text: only a pair the vocabulary allows passes.
    if (!type || !isErrorCode(type) || !statusAllowed(type, code)) throw err;
    throw new ApiError(
      code as ErrorStatus,
      type,
      rest.join(":"),
      code === 429 ? { "Retry-After": String(secondsToUtcMidnight(Date.now())) } : {},
    );
  }
}
