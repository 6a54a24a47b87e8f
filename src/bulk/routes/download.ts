import { createRoute, z } from "@hono/zod-openapi";
import { csvLine } from "../../http/csv.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { jobStub, onJob } from "../jobs.js";
import { type ResultRow, resultPartKey } from "../storage.js";
import { DOWNLOAD_FILES, type DownloadFile } from "../types.js";
import { assertOwnJob, auth, JobErrors, JobParams, security, TAG } from "./shared.js";

const route = createRoute({
  method: "get",
  path: "/bulk/{type}/{id}/download",
  tags: [TAG],
  security,
  summary:
    "Results, streamed: file=full (every row), valid or not_found (gen 1 name: type=); format=csv (default) or json",
  description:
    "CSV: the input columns, the result columns, bulk_status and bulk_error. A cell a spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage return) gets a leading single quote; numbers and phone numbers (+14155552671) are written as they are. JSON (format=json): {header, rows}, every value exactly as found. A duplicate row carries its original row's answer.",
  request: {
    params: JobParams,
    query: z.object({
      file: z.enum(DOWNLOAD_FILES).optional(),
      type: z.enum(DOWNLOAD_FILES).optional().openapi({ description: "Former name of `file`" }),
      format: z
        .enum(["csv", "json"])
        .optional()
        .openapi({ description: "csv (default) or json (values exactly as found, no spreadsheet escaping)" }),
    }),
  },
  responses: {
    200: {
      description: "CSV or JSON",
      content: {
        "text/csv": { schema: z.string() },
        "application/json": { schema: z.object({ header: z.array(z.string()), rows: z.array(z.array(z.string())) }) },
      },
    },
    ...JobErrors,
  },
});

const keep: Record<DownloadFile, (r: ResultRow) => boolean> = {
  full: () => true,
  valid: (r) => r.v,
  not_found: (r) => !r.v,
};

export function registerDownload(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { type, id } = c.req.valid("param");
    const q = c.req.valid("query");
    if (q.file && q.type && q.file !== q.type)
      throw new ApiError(
        400,
        "params_invalid",
        "The parameter 'type' is the former name of 'file'; send only one of them.",
      );
    const file: DownloadFile = q.file ?? q.type ?? "full";
    const format = q.format ?? "csv";
    await assertOwnJob(c, type, id);
    const stub = jobStub(c.env, id);
    const job = await onJob(stub.download(Date.now(), auth(c).actorId, file));
    const bucket = c.env.BULK_FILES;
    const encoder = new TextEncoder();
    const inputWidth = job.header.length - job.resultWidth;

    /** A part's rows in order, duplicates filled with their original row's answer (and sorted into its file). */
    const rowsOf = async (part: ResultRow[]) => {
      const refs = part.flatMap((r) => (r.d === undefined ? [] : [r.d]));
      if (refs.length) {
        const answers = new Map((await stub.answersOf(refs)).map((a) => [a.idx, a]));
        for (const r of part) {
          const original = r.d === undefined ? undefined : answers.get(r.d);
          if (!original) continue;
          r.v = original.valid;
          r.c.splice(
            inputWidth,
            job.resultWidth - 2,
            ...Array.from({ length: job.resultWidth - 2 }, (_, k) => original.cells[k] ?? ""),
          );
        }
      }
      return part.filter(keep[file]).map((r) => r.c);
    };
    const line =
      format === "csv"
        ? (cells: string[]) => `${csvLine(cells)}\r\n`
        : (cells: string[], first: boolean) => `${first ? "" : ","}\n${JSON.stringify(cells)}`;

    // One result part (one chunk of rows) in memory at a time; parts are read in row order.
    let chunk = 0;
    let first = true;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          encoder.encode(
            format === "csv" ? `\uFEFF${csvLine(job.header)}\r\n` : `{"header":${JSON.stringify(job.header)},"rows":[`,
          ),
        );
      },
      async pull(controller) {
        while (chunk < job.chunks) {
          const stored = await bucket.get(resultPartKey(job.prefix, chunk++));
          if (!stored) continue;
          const part = (await stored.text())
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as ResultRow);
          const text = (await rowsOf(part))
            .map((cells) => {
              const out = line(cells, first);
              first = false;
              return out;
            })
            .join("");
          if (text) {
            controller.enqueue(encoder.encode(text));
            return;
          }
        }
        if (format === "json") controller.enqueue(encoder.encode("\n]}\n"));
        controller.close();
      },
    });
    const filename = `${job.name.replace(/[^\w.-]+/g, "_").slice(0, 80) || "bulk"}-${id}-${file}.${format}`;
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="${filename}"`,
      },
    });
  });
}
