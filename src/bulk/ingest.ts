import { parse as parseCsv } from "csv-parse/sync";
import { ApiError } from "../http/errors.js";
import type { CreateOptions } from "./options.js";
import { CHUNK_ROWS, MAX_ROWS, MAX_ROWS_TEXT, type BulkType } from "./types.js";
import { inputChunkKey, type InputRow } from "./storage.js";

export interface IngestResult {
  /** Output header: the input's header row, or generated names when there was none. */
  header: string[];
  /** Capability parameter -> zero-based column. */
  fields: Record<string, number>;
  /** Create option naming each column ("domain_field_index") -> zero-based column, as shown in config. */
  fieldIndexes: Record<string, number>;
  chunks: number;
  counts: { input: number; valid_input: number; invalid_input: number; duplicates: number; skipped: number };
}

const normalise = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Columns of each field: explicit zero-based indexes first, then header synonyms, else the first column for the primary field. */
export function detectColumns(type: BulkType, header: string[] | null, width: number, options: CreateOptions, source: string): { fields: Record<string, number>; fieldIndexes: Record<string, number> } {
  const fields: Record<string, number> = {};
  const fieldIndexes: Record<string, number> = {};
  const taken = new Set<number>();
  const indexOptions = options as Record<string, unknown>;
  for (const f of type.decl.fields) {
    const given = indexOptions[f.field];
    if (typeof given !== "number") continue;
    if (given >= width) throw new ApiError(400, "params_invalid", `The parameter '${f.field}' is invalid: the ${source} has ${width} column${width === 1 ? "" : "s"} (indexes start at 0).`);
    fields[f.param] = given;
    fieldIndexes[f.field] = given;
    taken.add(given);
  }
  const explicit = Object.keys(fields).length > 0;
  if (header && !explicit) {
    const cells = header.map(normalise);
    for (const f of type.decl.fields) {
      if (f.param in fields) continue;
      const synonyms = new Set(f.headerSynonyms.map(normalise));
      const at = cells.findIndex((c, i) => !taken.has(i) && synonyms.has(c));
      if (at >= 0) {
        fields[f.param] = at;
        fieldIndexes[f.field] = at;
        taken.add(at);
      }
    }
  }
  const primaryParam = options.input_type === "company" ? "company" : type.decl.primaryParam;
  if (Object.keys(fields).length === 0 && (!header || width === 1)) {
    const primary = type.decl.fields.find((f) => f.param === primaryParam)!;
    fields[primary.param] = 0;
    fieldIndexes[primary.field] = 0;
  }
  if (!type.decl.requires.some((set) => set.every((p) => p in fields))) {
    const needed = type.decl.requires.map((set) => set.map((p) => type.decl.fields.find((f) => f.param === p)?.label ?? p).join(" + ")).join(", or ");
    const seen = header ? ` The header row is: ${header.map((h) => JSON.stringify(h)).join(", ")}.` : "";
    throw new ApiError(400, "params_invalid", `The ${source} has no usable column: ${type.type} jobs need ${needed} (name the columns in a header row or pass the *_field_index parameters).${seen}`);
  }
  return { fields, fieldIndexes };
}

/**
 * Reads records once, checking every row, and writes them to R2 in chunks of CHUNK_ROWS so no
 * more than one chunk is held. Rows are classified here (invalid, skipped, duplicate) so the
 * consumer only runs the ones that can be billed.
 */
export async function ingestRows(bucket: R2Bucket, prefix: string, type: BulkType, records: AsyncIterable<string[]>, options: CreateOptions, source: string): Promise<IngestResult> {
  const hasHeader = options.has_header ?? source !== "list";
  let header: string[] | null = null;
  let detected: ReturnType<typeof detectColumns> | null = null;
  let width = 0;
  const counts = { input: 0, valid_input: 0, invalid_input: 0, duplicates: 0, skipped: 0 };
  const seen = new Set<string>();
  let chunk: InputRow[] = [];
  let chunks = 0;
  const limit = Math.min(MAX_ROWS, options.total ?? MAX_ROWS);
  const flush = async () => {
    if (!chunk.length) return;
    await bucket.put(inputChunkKey(prefix, chunks), JSON.stringify(chunk));
    chunks += 1;
    chunk = [];
  };

  let first = true;
  for await (const raw of records) {
    const record = raw.map((c) => c.trim());
    if (record.every((c) => c === "")) continue;
    if (first) {
      first = false;
      width = record.length;
      if (hasHeader) {
        header = record.map((h) => h.replace(/^\uFEFF/, ""));
        detected = detectColumns(type, header, width, options, source);
        continue;
      }
      detected = detectColumns(type, null, width, options, source);
    }
    counts.input += 1;
    if (counts.input > limit) {
      const why = options.total !== undefined && options.total < MAX_ROWS ? `'total' is ${options.total}` : `at most ${MAX_ROWS_TEXT} rows per job`;
      throw new ApiError(400, "params_invalid", `The ${source} has too many rows: ${why}.`);
    }
    width = Math.max(width, record.length);
    const cells: Record<string, string> = {};
    for (const [param, at] of Object.entries(detected!.fields)) cells[param] = record[at] ?? "";
    const row: InputRow = { c: record };
    if (!type.decl.requires.some((set) => set.every((p) => cells[p]))) {
      row.x = "invalid";
      counts.invalid_input += 1;
    } else if (options.skip_rows_with_email && cells.email) {
      row.x = "skipped";
      counts.skipped += 1;
    } else {
      counts.valid_input += 1;
      const key = JSON.stringify(type.decl.requires.flat().map((p) => (cells[p] ?? "").toLowerCase()));
      if (seen.has(key)) counts.duplicates += 1;
      else if (seen.size < 200_000) seen.add(key);
    }
    chunk.push(row);
    if (chunk.length === CHUNK_ROWS) await flush();
  }
  if (first) throw new ApiError(400, "params_invalid", `The ${source} is empty.`);
  if (counts.input === 0) throw new ApiError(400, "params_invalid", `The ${source} has a header row but no rows to process.`);
  await flush();
  const outHeader = header ?? Array.from({ length: width }, (_, i) => (i === 0 && source === "list" ? type.decl.fields.find((f) => f.param === (options.input_type === "company" ? "company" : type.decl.primaryParam))!.param : `column_${i + 1}`));
  return { header: outHeader, fields: detected!.fields, fieldIndexes: detected!.fieldIndexes, chunks, counts };
}

/** Records of a `list` (one value per line). */
export async function* listRecords(list: string): AsyncGenerator<string[]> {
  for (const line of list.split(/\r?\n/)) yield [line];
}

/** Records of JSON `data`: rows of strings (first row a header unless has_header is false), or objects (keys are the header). */
export async function* dataRecords(data: unknown, delimiter = ","): AsyncGenerator<string[]> {
  let rows = data;
  if (typeof rows === "string") {
    try {
      rows = JSON.parse(rows);
    } catch {
      throw new ApiError(400, "params_invalid", "The parameter 'data' is invalid: expected a JSON array of rows.");
    }
  }
  if (!Array.isArray(rows)) throw new ApiError(400, "params_invalid", "The parameter 'data' is invalid: expected an array of rows.");
  const cell = (v: unknown, at: string) => {
    if (v === null || v === undefined) return "";
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return String(v);
    throw new ApiError(400, "params_invalid", `The parameter '${at}' is invalid: cells are strings.`);
  };
  if (rows.length && rows.every((r) => r && typeof r === "object" && !Array.isArray(r))) {
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r as object)))];
    yield keys;
    for (const [i, r] of rows.entries()) yield keys.map((k) => cell((r as Record<string, unknown>)[k], `data[${i}].${k}`));
    return;
  }
  for (const [i, r] of rows.entries()) {
    // A string row is one CSV line.
    if (typeof r === "string") {
      try {
        yield (parseCsv(r, { delimiter, relax_column_count: true }) as string[][])[0] ?? [""];
      } catch {
        throw new ApiError(400, "params_invalid", `The parameter 'data[${i}]' is invalid: not a CSV line (check its quotes).`);
      }
    }
    else if (Array.isArray(r)) yield r.map((v, j) => cell(v, `data[${i}][${j}]`));
    else throw new ApiError(400, "params_invalid", `The parameter 'data[${i}]' is invalid: expected an array of strings.`);
  }
}
