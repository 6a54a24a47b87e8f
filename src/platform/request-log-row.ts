import type { requestLogs } from "../db/schema.js";

// Kept apart from request-log-queue.ts (a leaf: no imports of the Worker's modules) so that
// src/env.ts can type the REQUEST_LOGS queue without an import cycle, and src/index.ts can name the
// queue without evaluating its consumer at startup.

/** The queue of request-log rows (request-log-queue.ts says how rows travel). */
export const REQUEST_LOG_QUEUE = "request-logs";

export type RequestLogRow = typeof requestLogs.$inferInsert;
/** One queue message: a row with the id that makes its insert idempotent. */
export type RequestLogMessage = RequestLogRow & { requestId: string };
/** One queue message: the rows of requests that ended together. */
export interface RequestLogPacket {
  rows: RequestLogMessage[];
}
