import type { BulkOptionValues } from "../capabilities/core/registry.js";
import type { BulkType } from "./types.js";

/** Columns appended after the input's own columns in every result file. */
export function resultHeader(type: BulkType, options: BulkOptionValues): string[] {
  return [...type.decl.resultColumns, ...(options.include_sources ? ["sources"] : []), "bulk_status", "bulk_error"];
}

function at(value: unknown, parts: string[]): unknown {
  if (parts.length === 0) return value;
  if (Array.isArray(value)) return value.map((item) => at(item, parts));
  if (value === null || typeof value !== "object") return undefined;
  return at((value as Record<string, unknown>)[parts[0]!], parts.slice(1));
}

/** A cell: scalars as text, lists joined with "; " (addresses of email lists, URLs of page lists). */
export function cellOf(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map((v) => (v && typeof v === "object" ? cellOf((v as { email?: unknown; uri?: unknown }).email ?? (v as { uri?: unknown }).uri ?? JSON.stringify(v)) : cellOf(v))).filter(Boolean).join("; ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Result cells of one answer's `data`, in resultHeader order (without the two status columns). */
export function resultCells(type: BulkType, options: BulkOptionValues, data: unknown): string[] {
  const cells = type.decl.resultColumns.map((path) => cellOf(at(data, path.split("."))));
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
