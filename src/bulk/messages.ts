// A leaf module (no imports) so that src/env.ts can type the BULK_QUEUE binding without an import cycle,
// and src/index.ts can name the queues without evaluating the consumer at startup.

export const BULK_ROWS_QUEUE = "bulk-rows";
export const BULK_ROWS_DEAD_LETTER_QUEUE = "bulk-rows-dlq";

/** One chunk of a job's rows on the bulk-rows queue; `run` tells a retry's messages from stale ones. */
export interface BulkRowsMessage {
  jobId: number;
  chunk: number;
  run: number;
}
