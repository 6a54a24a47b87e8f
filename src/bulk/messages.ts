// A leaf module (no imports) so that src/env.ts can type the BULK_QUEUE binding without an import cycle.

/** One chunk of a job's rows on the bulk-rows queue; `run` tells a retry's messages from stale ones. */
export interface BulkRowsMessage {
  jobId: number;
  chunk: number;
  run: number;
}
