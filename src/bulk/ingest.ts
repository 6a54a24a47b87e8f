import { parse as parseCsv } from "csv-parse/sync";
import { getDomain } from "tldts";
import type { BulkField } from "../capabilities/core/registry.js";
import { ApiError } from "../http/errors.js";
import { type CreateOptions, rowOptions } from "./options.js";
import { type InputRow, inputChunkKey } from "./storage.js";
import { type BulkType, CHUNK_ROWS, fieldOf, MAX_COLUMNS, MAX_ROWS, MAX_ROWS_TEXT, neededColumns } from "./types.js";

export interface RowCounts {
  /** Every data row read (blank lines included, the header row not). */
  input: number;
  /** Rows that run: input − invalid_input − duplicates − skipped. */
  valid_input: number;
  /** Blank rows and rows missing a column the type needs. */
  invalid_input: number;
  /** Rows asking the same lookup as an earlier row (not run again). */
  duplicates: number;
  /** Rows left out by an option (skip_rows_with_email, max_emails_per_domain). */
  skipped: number;
}

export interface IngestResult {
  /** Output header: the input's header row, or generated names when there was none. */
  header: string[];
  /** Capability parameter -> zero-based column. */
  fields: Record<string, number>;
  /** Create option naming each column ("domain_field_index") -> zero-based column, as shown in config. */
  fieldIndexes: Record<string, number>;
  chunks: number;
  counts: RowCounts;
}

/** Data rows read before the columns are decided: a headerless column is recognised from its values. */
const SAMPLE_ROWS = 20;

const normalise = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Values a column of this kind holds, for files whose header does not name it. Names cannot be told from their values. */
const LOOKS_LIKE: Record<string, (v: string) => boolean> = {
  email: (v) => /^[^@\s,;]+@[^@\s,;]+\.[a-z]{2,}$/i.test(v),
  domain: (v) => !v.includes("@") && /^(https?:\/\/)?(www\.)?([a-z0-9-]+\.)+[a-z]{2,}(\/\S*)?$/i.test(v),
  url: (v) => /^https?:\/\/\S+$/i.test(v),
  professional_network: (v) => /^(https?:\/\/)?([a-z]+\.)?linkedin\.com\/in\//i.test(v),
  phone: (v) => /^\+?[0-9][0-9 ().-]{5,}$/.test(v),
};

function columnLabel(field: BulkField) {
  return `${field.label} (${field.headerSynonyms
    .slice(0, 6)
    .map((s) => `"${s}"`)
    .join(", ")}${field.headerSynonyms.length > 6 ? ", ..." : ""})`;
}

/** 422: no set of columns the type needs, naming what was looked for and (briefly) what the header holds. */
function noUsableColumn(type: BulkType, header: string[] | null, source: string): ApiError {
  const needed = neededColumns(type);
  const wanted = [...new Set(type.decl.requires.flat())].flatMap(
    (p) => type.decl.fields.find((f) => f.param === p) ?? [],
  );
  const shown = header?.slice(0, 12).map((h) => JSON.stringify(h.slice(0, 40))) ?? [];
  const seen = header
    ? ` Its header row has ${header.length} column${header.length === 1 ? "" : "s"}: ${shown.join(", ")}${header.length > shown.length ? `, and ${header.length - shown.length} more` : ""}.`
    : "";
  return new ApiError(
    422,
    "unprocessable_entity",
    `The ${source} has no usable column: ${type.type} jobs need ${needed}. Looked for header cells named ${wanted.map(columnLabel).join("; ")}, and for columns of email addresses, domains, URLs or phone numbers in the first ${SAMPLE_ROWS} rows. Name the columns in the header row or pass the *_field_index parameters (zero-based).${seen}`,
  );
}

/**
 * Columns of each field: explicit zero-based indexes first, then header synonyms, then (for
 * columns a value can identify: emails, domains, URLs, phone numbers) the values of the first rows,
 * else the first column for the primary field of a one-column input.
 */
export function detectColumns(
  type: BulkType,
  header: string[] | null,
  sample: string[][],
  width: number,
  options: CreateOptions,
  source: string,
): { fields: Record<string, number>; fieldIndexes: Record<string, number> } {
  const fields: Record<string, number> = {};
  const fieldIndexes: Record<string, number> = {};
  const taken = new Set<number>();
  const use = (f: BulkField, at: number) => {
    fields[f.param] = at;
    fieldIndexes[f.field] = at;
    taken.add(at);
  };
  const indexOptions = options as Record<string, unknown>;
  for (const f of type.decl.fields) {
    const given = indexOptions[f.field];
    if (typeof given !== "number") continue;
    if (given >= width)
      throw new ApiError(
        400,
        "params_invalid",
        `The parameter '${f.field}' is invalid: the ${source} has ${width} column${width === 1 ? "" : "s"} (indexes start at 0).`,
      );
    use(f, given);
  }
  const explicit = Object.keys(fields).length > 0;
  if (!explicit) {
    if (header) {
      const cells = header.map(normalise);
      for (const f of type.decl.fields) {
        if (f.param in fields) continue;
        const synonyms = new Set(f.headerSynonyms.map(normalise));
        const at = cells.findIndex((c, i) => !taken.has(i) && synonyms.has(c));
        if (at >= 0) use(f, at);
      }
    }
    const satisfied = () => type.decl.requires.some((set) => set.every((p) => p in fields));
    if (!satisfied()) {
      for (const f of type.decl.fields) {
        const looks =
          LOOKS_LIKE[f.param === "url" && f.field === "linkedin_url_field_index" ? "professional_network" : f.param];
        if (f.param in fields || !looks) continue;
        for (let at = 0; at < width; at++) {
          if (taken.has(at)) continue;
          const values = sample.map((r) => (r[at] ?? "").trim()).filter(Boolean);
          if (values.length > 0 && values.filter(looks).length >= Math.ceil(values.length * 0.8)) {
            use(f, at);
            break;
          }
        }
      }
    }
  }
  const primaryParam = options.input_type === "company" ? "company" : type.decl.primaryParam;
  if (Object.keys(fields).length === 0 && width === 1) {
    use(fieldOf(type.decl, primaryParam), 0);
  }
  if (!type.decl.requires.some((set) => set.every((p) => p in fields))) {
    if (explicit) {
      const label = (p: string) => type.decl.fields.find((f) => f.param === p)?.field ?? p;
      throw new ApiError(
        400,
        "params_invalid",
        `The *_field_index parameters name no complete set of columns: ${type.type} jobs need ${type.decl.requires.map((set) => set.map(label).join(" + ")).join(", or ")}.`,
      );
    }
    throw noUsableColumn(type, header, source);
  }
  return { fields, fieldIndexes };
}

/** A domain as max_emails_per_domain counts it: its registrable domain, lower-cased. */
function domainKey(value: string): string {
  const v = value.trim().toLowerCase();
  return getDomain(v) ?? v;
}

/**
 * Reads records once, classifying every row (blank, invalid, duplicate, skipped by an option, or
 * to run), and writes them to R2 in chunks of CHUNK_ROWS so no more than one chunk is held. Every
 * row read is kept, so the job accounts for each one: input = valid_input + invalid_input +
 * duplicates + skipped. Only the header row (and blank lines before it) is not a row.
 */
export async function ingestRows(
  bucket: R2Bucket,
  prefix: string,
  type: BulkType,
  records: AsyncIterable<string[]>,
  options: CreateOptions,
  source: string,
): Promise<IngestResult> {
  const hasHeader = options.has_header ?? source !== "list";
  const values = rowOptions(options);
  const { domainOf } = type.decl;
  const cap =
    domainOf && typeof options.max_emails_per_domain === "number"
      ? { domainOf, max: options.max_emails_per_domain }
      : null;
  const counts: RowCounts = { input: 0, valid_input: 0, invalid_input: 0, duplicates: 0, skipped: 0 };
  const firstSeen = new Map<string, number>();
  const perDomain = new Map<string, number>();
  let chunk: InputRow[] = [];
  let chunks = 0;
  const limit = Math.min(MAX_ROWS, options.total ?? MAX_ROWS);
  const flush = async () => {
    if (!chunk.length) return;
    await bucket.put(inputChunkKey(prefix, chunks), JSON.stringify(chunk));
    chunks += 1;
    chunk = [];
  };
  // The header row and the first rows decide the columns; nothing further is read before that.
  const reader = new RecordReader(records);
  const next = () => reader.next();
  try {
    const { header, sample } = await readHead(reader, hasHeader, source);
    let width = Math.max(header?.length ?? 0, ...sample.map((r) => r.length));
    const nothingToDo = () =>
      new ApiError(
        400,
        "params_invalid",
        header ? `The ${source} has a header row but no rows to process.` : `The ${source} has no rows to process.`,
      );
    if (reader.done && sample.every(isBlank)) throw nothingToDo();
    const detected = detectColumns(
      type,
      header,
      sample.filter((r) => !isBlank(r)),
      width,
      options,
      source,
    );

    const classify = (record: string[]): InputRow => {
      const row: InputRow = { c: record };
      if (isBlank(record)) {
        counts.invalid_input += 1;
        return { ...row, x: "blank" };
      }
      const cells: Record<string, string> = {};
      for (const [param, at] of Object.entries(detected.fields)) cells[param] = (record[at] ?? "").trim();
      if (!type.decl.requires.some((set) => set.every((p) => cells[p]))) {
        counts.invalid_input += 1;
        return { ...row, x: "invalid" };
      }
      if (options.skip_rows_with_email && cells.email) {
        counts.skipped += 1;
        return { ...row, x: "has_email" };
      }
      // The same request as an earlier row (same parameters once trimmed and lower-cased) is not run twice.
      const request = JSON.stringify(
        Object.entries(type.decl.paramsFor(cells, values))
          .map(([k, v]) => [k, v.trim().toLowerCase()])
          .sort(),
      );
      const earlier = firstSeen.get(request);
      if (earlier !== undefined) {
        counts.duplicates += 1;
        return { ...row, x: "duplicate", r: String(earlier) };
      }
      firstSeen.set(request, counts.input);
      if (cap !== null) {
        const owner = cap.domainOf(cells);
        if (owner) {
          const key = domainKey(owner);
          const n = (perDomain.get(key) ?? 0) + 1;
          perDomain.set(key, n);
          if (n > cap.max) {
            counts.skipped += 1;
            return { ...row, x: "over_cap", r: key };
          }
        }
      }
      counts.valid_input += 1;
      return row;
    };

    let filled = 0;
    const take = async (record: string[]) => {
      counts.input += 1;
      if (!isBlank(record)) filled += 1;
      if (counts.input > limit) {
        const why =
          options.total !== undefined && options.total < MAX_ROWS
            ? `'total' is ${options.total}`
            : `at most ${MAX_ROWS_TEXT} rows per job`;
        throw new ApiError(400, "params_invalid", `The ${source} has too many rows: ${why}.`);
      }
      if (record.length > MAX_COLUMNS)
        throw new ApiError(
          400,
          "params_invalid",
          `The ${source} has ${record.length.toLocaleString("en")} columns on row ${counts.input}; a bulk file may have at most ${MAX_COLUMNS.toLocaleString("en")}.`,
        );
      width = Math.max(width, record.length);
      chunk.push(classify(record));
      if (chunk.length === CHUNK_ROWS) await flush();
    };
    for (const record of sample) await take(record);
    while (!reader.done) {
      const record = await next();
      if (record) await take(record);
    }
    if (filled === 0) throw nothingToDo();
    await flush();
    const primary = options.input_type === "company" ? "company" : type.decl.primaryParam;
    const outHeader =
      header ??
      Array.from({ length: width }, (_, i) =>
        i === 0 && source === "list" ? fieldOf(type.decl, primary).param : `column_${i + 1}`,
      );
    return { header: outHeader, fields: detected.fields, fieldIndexes: detected.fieldIndexes, chunks, counts };
  } finally {
    // A refused file stops reading here; the source releases what it holds.
    await reader.close();
  }
}

const isBlank = (record: string[]) => record.every((c) => c.trim() === "");

/** Reads records one at a time and knows when they ran out. */
class RecordReader {
  private readonly iterator: AsyncIterator<string[]>;
  done = false;

  constructor(records: AsyncIterable<string[]>) {
    this.iterator = records[Symbol.asyncIterator]();
  }

  /** The next record, as it came (the download echoes cells untrimmed); null once there are none. */
  async next(): Promise<string[] | null> {
    const r = await this.iterator.next();
    if (r.done) this.done = true;
    return r.done ? null : r.value;
  }

  async close(): Promise<void> {
    if (!this.done) await this.iterator.return?.();
  }
}

/**
 * The header row (when the input has one) and the first SAMPLE_ROWS rows after it, which decide the
 * columns. Blank lines before them are not rows.
 */
async function readHead(
  reader: RecordReader,
  hasHeader: boolean,
  source: string,
): Promise<{ header: string[] | null; sample: string[][] }> {
  let header: string[] | null = null;
  const sample: string[][] = [];
  for (;;) {
    const record = await reader.next();
    if (!record) break;
    if (isBlank(record) && header === null && sample.length === 0) continue;
    if (record.length > MAX_COLUMNS)
      throw new ApiError(
        400,
        "params_invalid",
        `The ${source} has ${record.length.toLocaleString("en")} columns on one row; a bulk file may have at most ${MAX_COLUMNS.toLocaleString("en")}.`,
      );
    if (hasHeader && header === null) {
      header = record.map((h) => h.replace(/^\uFEFF/, "").trim());
      continue;
    }
    sample.push(record);
    if (sample.length >= SAMPLE_ROWS) break;
  }
  if (header === null && sample.length === 0) throw new ApiError(400, "params_invalid", `The ${source} is empty.`);
  return { header, sample };
}

/** What a job would make of an input's first lines: its header, first rows and the columns it would use. */
export interface ColumnPreview {
  header: string[] | null;
  rows: string[][];
  /** Create option naming each column ("domain_field_index") -> zero-based column; empty when none could be chosen. */
  fieldIndexes: Record<string, number>;
  /** Why no columns could be chosen (the message a create would answer with), else null. */
  problem: string | null;
}

/**
 * The columns a job created from these records would use, chosen exactly as a create chooses them
 * (readHead and detectColumns), without storing anything: POST /v1/bulk/{type}/columns.
 */
export async function previewColumns(
  type: BulkType,
  records: AsyncIterable<string[]>,
  options: CreateOptions,
  source: string,
): Promise<ColumnPreview> {
  const reader = new RecordReader(records);
  try {
    const { header, sample } = await readHead(reader, options.has_header ?? true, source);
    const width = Math.max(header?.length ?? 0, ...sample.map((r) => r.length));
    try {
      const { fieldIndexes } = detectColumns(
        type,
        header,
        sample.filter((r) => !isBlank(r)),
        width,
        options,
        source,
      );
      return { header, rows: sample, fieldIndexes, problem: null };
    } catch (err) {
      if (err instanceof ApiError && err.status === 422)
        return { header, rows: sample, fieldIndexes: {}, problem: err.message };
      throw err;
    }
  } finally {
    await reader.close();
  }
}

/** Records of a `list` (one value per line; a final line break ends the last line, it adds no row). */
export async function* listRecords(list: string): AsyncGenerator<string[]> {
  for (const line of list.replace(/\r?\n$/, "").split(/\r?\n/)) yield [line];
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
  if (!Array.isArray(rows))
    throw new ApiError(400, "params_invalid", "The parameter 'data' is invalid: expected an array of rows.");
  const cell = (v: unknown, at: string) => {
    if (v === null || v === undefined) return "";
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return String(v);
    throw new ApiError(400, "params_invalid", `The parameter '${at}' is invalid: cells are strings.`);
  };
  if (rows.length && rows.every((r) => r && typeof r === "object" && !Array.isArray(r))) {
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r as object)))];
    yield keys;
    for (const [i, r] of rows.entries())
      yield keys.map((k) => cell((r as Record<string, unknown>)[k], `data[${i}].${k}`));
    return;
  }
  for (const [i, r] of rows.entries()) {
    // A string row is one CSV line.
    if (typeof r === "string") {
      try {
        yield (parseCsv(r, { delimiter, relax_column_count: true }) as string[][])[0] ?? [""];
      } catch {
        throw new ApiError(
          400,
          "params_invalid",
          `The parameter 'data[${i}]' is invalid: not a CSV line (check its quotes).`,
        );
      }
    } else if (Array.isArray(r)) yield r.map((v, j) => cell(v, `data[${i}][${j}]`));
    else
      throw new ApiError(400, "params_invalid", `The parameter 'data[${i}]' is invalid: expected an array of strings.`);
  }
}
