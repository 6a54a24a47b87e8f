import type { JobState } from "./job-view.js";
import type { InputRow, ResultRow, RowOutcome } from "./storage.js";

/**
 * A finished chunk's result part: each input row, in order, with its recorded result (a duplicate
 * row points at its original row, whose answer a download fills in).
 */
export function resultPart(
  job: JobState,
  chunk: number,
  inputRows: readonly InputRow[],
  rows: readonly { idx: number; outcome: RowOutcome; valid: number; cells: string; error: string | null }[],
): ResultRow[] {
  const recorded = new Map(rows.map((r) => [r.idx, r]));
  const width = job.header.length;
  const resultWidth = job.resultHeader.length - 2;
  const first = chunk * job.chunkRows;
  const part: ResultRow[] = [];
  for (const [i, inputRow] of inputRows.entries()) {
    const r = recorded.get(first + i);
    if (!r) throw new Error(`row ${first + i} of job ${job.id} was not recorded`);
    const cells = JSON.parse(r.cells) as string[];
    const inputCells = Array.from({ length: width }, (_, k) => inputRow.c[k] ?? "");
    const results = Array.from({ length: resultWidth }, (_, k) => cells[k] ?? "");
    const original = inputRow.x === "duplicate" ? Number(inputRow.r) - 1 : NaN;
    part.push({
      o: r.outcome,
      v: r.valid === 1,
      c: [...inputCells, ...results, r.outcome, r.error ?? ""],
      ...(Number.isInteger(original) ? { d: original } : {}),
    });
  }
  return part;
}
