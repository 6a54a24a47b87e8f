import { createRoute, z } from "@hono/zod-openapi";
import { groupByIndex } from "../../db/shards.js";
import { errorResponse } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { checkFile, checkRow, type ImportReport, type ImportRow } from "../../import/rows.js";
import { statementsFor } from "../../import/statements.js";

/** Rows per request; larger files go through `npm run import` or several requests. */
export const MAX_IMPORT_ROWS = 10_000;
/** Errors listed in the answer; the counts stay exact. */
const MAX_LISTED_ERRORS = 100;
// D1 runs a batch as one transaction; keep each well under its statement limits.
const BATCH = 50;

/** A JSON import: an array of rows, or an object holding them under `rows`. Each row is checked on its own. */
const JsonImport = z.union([
  z.array(z.unknown()),
  z.object({ rows: z.array(z.unknown()) }).transform((body) => body.rows),
]);

// The body is read by hand: its format follows the content type (or ?format=), and a row that
// fails its checks is reported in the answer rather than failing the request.
const route = createRoute({
  method: "post",
  path: "/import",
  request: {
    query: z.object({
      format: z.string().optional().openapi({ description: "csv, ndjson or json; default: from the content type" }),
    }),
  },
  responses: { 200: { description: "What was accepted and rejected, with reasons" } },
});

/**
 * POST /operator/import: people, companies and phones the operator owns, as CSV (text/csv),
 * NDJSON (application/x-ndjson) or JSON (an array of objects, or {rows: [...]}).
 */
export function registerImportRoute(app: ApiApp) {
  app.openapi(route, async (c) => {
    const type = (c.req.header("content-type") ?? "").replace(/;.*$/s, "").trim().toLowerCase();
    const format = c.req.valid("query").format?.toLowerCase() ?? formatOf(type);
    if (!format || !["csv", "ndjson", "json"].includes(format)) {
      return errorResponse(
        415,
        "unsupported_media_type",
        "Send text/csv, application/x-ndjson or application/json (or pass ?format=csv|ndjson|json).",
      );
    }
    const body = await c.req.text();
    let checked: { rows: ImportRow[]; report: ImportReport };
    if (format === "json") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return errorResponse(400, "params_invalid", "The body is not valid JSON.");
      }
      const list = JsonImport.safeParse(parsed);
      if (!list.success) return errorResponse(400, "params_invalid", 'Send an array of rows or {"rows": [...]}.');
      checked = checkObjects(list.data);
    } else {
      checked = checkFile(body, format as "csv" | "ndjson");
    }
    const total = checked.report.accepted + checked.report.rejected;
    if (total === 0) return errorResponse(400, "params_invalid", "The file holds no rows.");
    if (total > MAX_IMPORT_ROWS)
      return errorResponse(
        413,
        "payload_too_large",
        `At most ${MAX_IMPORT_ROWS} rows per request (got ${total}); use npm run import for larger files.`,
      );

    const statements = statementsFor(checked.rows, Date.now());
    // Each row's statements go to its domain's index database, in file order there; the databases
    // are written in parallel.
    await Promise.all(
      (await groupByIndex(c.env, statements, (s) => s.domain, { writes: true })).map(async ([index, own]) => {
        for (let i = 0; i < own.length; i += BATCH)
          await index.$client.batch(own.slice(i, i + BATCH).map((s) => index.$client.prepare(s.sql).bind(...s.params)));
      }),
    );
    const { errors, ...counts } = checked.report;
    return c.json(
      {
        ...counts,
        source: "import",
        errors: errors.slice(0, MAX_LISTED_ERRORS),
        errors_truncated: errors.length > MAX_LISTED_ERRORS,
      },
      200,
    );
  });
}

function formatOf(contentType: string): string | undefined {
  if (contentType === "text/csv") return "csv";
  if (
    ["application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"].includes(contentType)
  )
    return "ndjson";
  if (contentType === "application/json") return "json";
  return undefined;
}

function checkObjects(list: unknown[]): { rows: ImportRow[]; report: ImportReport } {
  const rows: ImportRow[] = [];
  const report: ImportReport = { accepted: 0, rejected: 0, by_kind: { person: 0, company: 0, phone: 0 }, errors: [] };
  list.forEach((item, i) => {
    const r =
      item && typeof item === "object" && !Array.isArray(item)
        ? checkRow(item as Record<string, unknown>)
        : ({ ok: false, reason: "the row is not an object." } as const);
    if (r.ok) {
      rows.push(r.row);
      report.accepted++;
      report.by_kind[r.row.kind]++;
    } else {
      report.rejected++;
      // Rows of a JSON array are numbered from 1, like lines of a file.
      report.errors.push({ line: i + 1, reason: r.reason });
    }
  });
  return { rows, report };
}
