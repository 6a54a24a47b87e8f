import type { BulkOptionValues } from "../capabilities/core/registry.js";
import type { ErrorCode, StatusOf } from "../http/errors.js";
import type { Settlement } from "../limits/limiter-messages.js";
import type { RowOutcome } from "./storage.js";

// What a bulk job's object (job-object.ts) exchanges with its callers: the consumer's rows, a
// delivery's plan, a chunk's billing, the history, and the errors that cross the RPC boundary.

/** One processed row, as the consumer reports it. */
export interface RowRecord {
  idx: number;
  outcome: RowOutcome;
  /** Why, as a code the summary groups by: found, not_found, filtered, blank, missing, refused, duplicate, has_email, over_cap, or an error type. */
  reason?: string;
  valid: boolean;
  cells: string[];
  error?: string;
  emails: number;
  credits: { search?: number; verification?: number; phone?: number };
}

/** Whether a delivery may run its chunk, and what it needs to. */
export type ChunkPlan =
  | { go: false }
  | {
      go: true;
      accountId: number;
      type: string;
      prefix: string;
      fields: Record<string, number>;
      options: BulkOptionValues;
      done: number[];
      chunkRows: number;
      /** Fencing token of this delivery: only the latest delivery of a chunk may record its rows. */
      token: number;
      /** The chunk's claim: the delivery renews it (renewChunk) while it runs. */
      claimMs: number;
    };

/** What a chunk's found rows cost, kept with them until the account's limiter has decided it. */
export interface ChunkBilling {
  plan: string;
  settlement: Settlement;
  /** The rows whose credits the decision sets: row index and the request it billed. */
  rows: { idx: number; fingerprint: string }[];
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

/** Errors cross the RPC boundary as plain Errors: the status and type travel in the message (see jobs.ts). */
export const jobError = <T extends ErrorCode>(
  status: NoInfer<StatusOf<T>> & (404 | 409 | 429),
  type: T,
  message: string,
) => new Error(`${JOB_ERROR}${status}:${type}:${message}`);
export const JOB_ERROR = "bulk-job-error:";
export const invalidState = (message: string) => jobError(409, "invalid_state", message);
