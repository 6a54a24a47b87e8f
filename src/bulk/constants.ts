// The fixed numbers of bulk jobs. Kept apart from types.ts (which derives the bulk types from the
// capability registry) so the Worker's entry module (the body limit in src/app.ts, the BulkJob
// Durable Object) can read them without evaluating the registry and the engine at startup.

/** Uploads above the 4 MB limit of the rest of the API are accepted on create, up to this size. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
export const MAX_ROWS = 100_000;
/** Columns a file may have (its header row is also capped at 64 KiB, MAX_FIRST_LINE_BYTES in csv-source.ts). */
export const MAX_COLUMNS = 1_000;
/**
 * MAX_ROWS as people read it ("100,000"). Not `toLocaleString`: the route description is built at
 * module load, and the first Intl number format of an isolate loads locale data (~10 ms of startup).
 */
export const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ",");
export const MAX_ROWS_TEXT = thousands(MAX_ROWS);
/** Rows per normalised input chunk, per queue message and per result part. */
export const CHUNK_ROWS = 50;
export const MAX_RUNNING_PER_TYPE = 2;
export const CREATES_PER_TYPE_PER_DAY = 15;
export const DOWNLOADS_PER_JOB_PER_DAY = 50;
export const JOB_VALIDITY_MS = 180 * 86_400_000;
export const DOWNLOAD_FILES = ["full", "valid", "not_found"] as const;
export type DownloadFile = (typeof DOWNLOAD_FILES)[number];
