/** R2 layout of one job, under a random prefix so a refused create can be removed without a job id. */
export const uploadKey = (prefix: string) => `bulk/${prefix}/upload.csv`;
export const inputChunkKey = (prefix: string, chunk: number) =>
  `bulk/${prefix}/in/${String(chunk).padStart(6, "0")}.json`;
export const resultPartKey = (prefix: string, chunk: number) =>
  `bulk/${prefix}/out/${String(chunk).padStart(6, "0")}.json`;

/**
 * Why an input row is not run, decided when the file is read:
 *  - `blank`: every cell empty;
 *  - `invalid`: a column the type needs is empty;
 *  - `duplicate`: the same lookup as an earlier row (`r`: that row's number);
 *  - `has_email`: skip_rows_with_email and the row has an address;
 *  - `over_cap`: max_emails_per_domain rows of its domain come earlier (`r`: the domain).
 * `skipped` is the former name of `has_email` (chunks written before it was split).
 */
export type RowSkip = "blank" | "invalid" | "duplicate" | "has_email" | "over_cap" | "skipped";

/** One normalised input row: its original cells and, when it is not run, why. */
export interface InputRow {
  c: string[];
  x?: RowSkip;
  r?: string;
}

/** One finished row in a result part: the outcome, whether it belongs to the `valid` file, and its cells. */
export interface ResultRow {
  o: RowOutcome;
  v: boolean;
  c: string[];
  /** A duplicate row: the index of the row whose answer it repeats (filled in when downloaded). */
  d?: number;
}

/**
 * What became of a row. Run: `found`, `not_found` (nothing, or withheld by the job's filters),
 * `client_error` / `server_error` (failed). Not run: `invalid` (also a row whose value the capability
 * refused as invalid), `duplicate`, `skipped` (skip_rows_with_email, max_emails_per_domain).
 */
export type RowOutcome = "found" | "not_found" | "invalid" | "duplicate" | "skipped" | "client_error" | "server_error";

/** Deletes everything stored under a job's prefix (a refused create, a deleted job). */
export async function deletePrefix(bucket: R2Bucket, prefix: string) {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: `bulk/${prefix}/`, cursor });
    if (page.objects.length) await bucket.delete(page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}
