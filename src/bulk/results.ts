import type { BulkOptionValues } from "../capabilities/core/registry.js";
import type { BulkType } from "./types.js";

/** The result columns of a job (header -> dot path into the answer's `data`): the type's, then those its options add. */
export function resultColumns(type: BulkType, options: BulkOptionValues): [string, string][] {
  const columns = Object.entries(type.decl.resultColumns);
  for (const [option, extra] of Object.entries(type.decl.optionColumns ?? {})) {
    const value = options[option];
    if (value === undefined || value === false) continue;
    for (const column of Object.entries(extra)) if (!columns.some(([h]) => h === column[0])) columns.push(column);
  }
  return columns;
}

/** Columns appended after the input's own columns in every result file. */
export function resultHeader(type: BulkType, options: BulkOptionValues): string[] {
  return [
    ...resultColumns(type, options).map(([header]) => header),
    ...(options.include_sources ? ["sources"] : []),
    "bulk_status",
    "bulk_error",
  ];
}

/** The value at a dot path; through an array, the list of each element's value. */
export function valueAt(value: unknown, path: string): unknown {
  return at(value, path.split("."));
}

function at(value: unknown, parts: string[]): unknown {
  const [first, ...rest] = parts;
  if (first === undefined) return value;
  if (Array.isArray(value)) return value.map((item) => at(item, parts));
  if (value === null || typeof value !== "object") return undefined;
  return at((value as Record<string, unknown>)[first], rest);
}

/** A cell: scalars as text, lists joined with "; " (addresses of email lists, URLs of page lists). */
export function cellOf(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value))
    return value
      .map((v) =>
        v && typeof v === "object"
          ? cellOf((v as { email?: unknown; uri?: unknown }).email ?? (v as { uri?: unknown }).uri ?? JSON.stringify(v))
          : cellOf(v),
      )
      .filter(Boolean)
      .join("; ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Result cells of one answer's `data`, in resultHeader order (without the two status columns). */
export function resultCells(type: BulkType, options: BulkOptionValues, data: unknown): string[] {
  const cells = resultColumns(type, options).map(([, path]) => cellOf(valueAt(data, path)));
  if (options.include_sources) {
    const d = data as { sources?: unknown[]; emails?: { sources?: unknown[] }[] } | null;
    const sources = d?.sources ?? d?.emails?.flatMap((e) => e.sources ?? []) ?? [];
    cells.push(cellOf(sources));
  }
  return cells;
}

/** Addresses an answer holds (finder-like: one, domain search: its list). */
export function emailsIn(data: unknown): number {
  const d = data as { email?: unknown; emails?: unknown[] } | null;
  if (Array.isArray(d?.emails)) return d.emails.length;
  return typeof d?.email === "string" ? 1 : 0;
}
