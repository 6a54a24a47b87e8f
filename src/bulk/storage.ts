/** R2 layout of one job, under a random prefix so a refused create can be removed without a job id. */
export const uploadKey = (prefix: string) => `bulk/${prefix}/upload.csv`;
export const inputChunkKey = (prefix: string, chunk: number) => `bulk/${prefix}/in/${String(chunk).padStart(6, "0")}.json`;
export const resultPartKey = (prefix: string, chunk: number) => `bulk/${prefix}/out/${String(chunk).padStart(6, "0")}.json`;

/** One normalised input row: its original cells and why it is not run (when it is not). */
export interface InputRow {
  c: string[];
  x?: "invalid" | "skipped";
}

/** One finished row in a result part: the outcome, whether it belongs to the `valid` file, and its CSV cells. */
export interface ResultRow {
  o: RowOutcome;
  v: boolean;
  c: string[];
}

export type RowOutcome = "found" | "not_found" | "invalid" | "skipped" | "client_error" | "server_error";

/** Deletes everything stored under a job's prefix (a refused create, a deleted job). */
export async function deletePrefix(bucket: R2Bucket, prefix: string) {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: `bulk/${prefix}/`, cursor });
    if (page.objects.length) await bucket.delete(page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}

/** RFC 4180 quoting: a cell with a delimiter, quote or line break is quoted, quotes doubled. */
export function csvLine(cells: readonly unknown[]): string {
  return cells
    .map((v) => {
      const s = v === null || v === undefined ? "" : String(v);
      return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    })
    .join(",");
}
