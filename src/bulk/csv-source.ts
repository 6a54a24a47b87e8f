import { CsvError, parse } from "csv-parse";
import { ApiError } from "../http/errors.js";
import { MAX_COLUMNS } from "./constants.js";

const CANDIDATES = [",", ";", "\t", "|"] as const;
/** The first line (the header row) is read whole before anything else; longer than this is refused, whatever the file's width. */
export const MAX_FIRST_LINE_BYTES = 64 * 1024;
/** Any row: csv-parse refuses a longer record instead of buffering it. */
const MAX_RECORD_CHARS = 1024 * 1024;
const NAMES: Record<string, string> = { ",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe" };

/** Count of each candidate delimiter in a line, quoted parts left out. */
function delimiterCounts(line: string): Record<string, number> {
  const counts: Record<string, number> = {};
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (CANDIDATES as readonly string[]).includes(ch)) counts[ch] = (counts[ch] ?? 0) + 1;
  }
  return counts;
}

/** The delimiter of a first line: the given one is checked (a wrong one is refused), or the most frequent candidate. */
export function chooseDelimiter(firstLine: string, given: string | undefined): string {
  const counts = delimiterCounts(firstLine);
  const best = CANDIDATES.reduce<string>((a, b) => ((counts[b] ?? 0) > (counts[a] ?? 0) ? b : a), ",");
  if (!given) return best;
  if (!counts[given] && (counts[best] ?? 0) > 0) {
    throw new ApiError(
      400,
      "params_invalid",
      `The parameter 'delimiter' does not match the file: line 1 has no ${NAMES[given]} but is ${NAMES[best]}-separated.`,
    );
  }
  return given;
}

class NotUtf8 extends Error {}

/**
 * CSV records from a byte stream, never holding the whole file: bytes are decoded as strict UTF-8
 * (a BOM is dropped) and fed to csv-parse with backpressure. Errors become 400 params_invalid
 * naming the CSV line.
 */
export async function* csvRecords(
  stream: ReadableStream<Uint8Array>,
  opts: { delimiter?: string; field?: string },
): AsyncGenerator<string[]> {
  const reader = stream.getReader();
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  let linesBefore = 0;
  const decode = (bytes: Uint8Array | undefined, done: boolean) => {
    try {
      const text = done ? decoder.decode() : decoder.decode(bytes, { stream: true });
      return text;
    } catch {
      const lossy = new TextDecoder("utf-8").decode(bytes ?? new Uint8Array());
      const bad = lossy.indexOf("\uFFFD");
      const line = linesBefore + (bad >= 0 ? lossy.slice(0, bad).split("\n").length : 1);
      throw new NotUtf8(
        `The ${opts.field ?? "file"} is not UTF-8 text (invalid bytes on CSV line ${line}). Save it as UTF-8 and upload again.`,
      );
    }
  };

  // The first line decides the delimiter, so read until it is complete (and no further than the cap).
  let head = "";
  let ended = false;
  while (!head.includes("\n")) {
    if (head.length > MAX_FIRST_LINE_BYTES) {
      await reader.cancel().catch(() => {});
      throw new ApiError(
        400,
        "params_invalid",
        `The first line of the ${opts.field ?? "file"} is longer than ${MAX_FIRST_LINE_BYTES / 1024} KiB: a header row may be at most ${MAX_FIRST_LINE_BYTES / 1024} KiB (and ${MAX_COLUMNS.toLocaleString("en")} columns).`,
      );
    }
    const { value, done } = await reader.read();
    if (done) {
      head += decode(undefined, true);
      ended = true;
      break;
    }
    try {
      head += decode(value, false);
    } catch (err) {
      throw new ApiError(400, "params_invalid", (err as Error).message);
    }
  }
  const firstLine = head.replace(/^\uFEFF/, "").split(/\r?\n/)[0] ?? "";
  const delimiter = chooseDelimiter(firstLine, opts.delimiter);
  // Blank lines are kept (as records of one empty cell): every line of the file is a row the job accounts for.
  const parser = parse({
    delimiter,
    bom: true,
    relax_column_count: true,
    skip_empty_lines: false,
    trim: false,
    max_record_size: MAX_RECORD_CHARS,
  });

  let failure: unknown;
  // Set when the reader of the records stops early (a refused header, too many rows): the feeder
  // must not wait for a drain that will never come, or the request hangs.
  let stopped = false;
  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        parser.off("drain", done);
        parser.off("close", done);
        resolve();
      };
      parser.on("drain", done);
      parser.on("close", done);
    });
  const feed = async () => {
    const write = async (text: string) => {
      linesBefore += text.split("\n").length - 1;
      if (text && !stopped && !parser.write(text)) await drained();
    };
    try {
      await write(head);
      while (!ended && !stopped) {
        const { value, done } = await reader.read();
        if (done) {
          await write(decode(undefined, true));
          break;
        }
        await write(decode(value, false));
      }
      if (!stopped) parser.end();
    } catch (err) {
      failure = err;
      parser.destroy(err as Error);
    }
  };
  const feeding = feed();
  try {
    for await (const record of parser) yield record as string[];
  } catch (err) {
    throw toApiError(failure ?? err, opts.field ?? "file");
  } finally {
    stopped = true;
    if (!parser.destroyed) parser.destroy();
    await reader.cancel().catch(() => {});
    await feeding;
    reader.releaseLock();
  }
  if (failure) throw toApiError(failure, opts.field ?? "file");
}

function toApiError(err: unknown, field: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof NotUtf8) return new ApiError(400, "params_invalid", err.message);
  if (err instanceof CsvError) {
    const line = (err as CsvError & { lines?: number }).lines;
    const where = line ? ` on CSV line ${line}` : "";
    if (err.code === "CSV_MAX_RECORD_SIZE")
      return new ApiError(
        400,
        "params_invalid",
        `The ${field} has a row longer than ${MAX_RECORD_CHARS / 1024 / 1024} MiB${where}.`,
      );
    if (err.code === "CSV_QUOTE_NOT_CLOSED")
      return new ApiError(
        400,
        "params_invalid",
        `The ${field} has an unbalanced quote${where}: a quoted cell is never closed.`,
      );
    if (
      err.code === "CSV_INVALID_CLOSING_QUOTE" ||
      err.code === "INVALID_OPENING_QUOTE" ||
      err.code === "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE"
    ) {
      return new ApiError(
        400,
        "params_invalid",
        `The ${field} has a misplaced quote${where}: quote a whole cell and double quotes inside it.`,
      );
    }
    return new ApiError(400, "params_invalid", `The ${field} is not valid CSV${where}: ${err.message}`);
  }
  return new ApiError(400, "params_invalid", `The ${field} could not be read as CSV.`);
}
