import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { ApiError } from "../../http/errors.js";
import { jobStub, onJob } from "../jobs.js";
import { csvLine, resultPartKey, type ResultRow } from "../storage.js";
import { DOWNLOAD_FILES, type DownloadFile } from "../types.js";
import { assertOwnJob, auth, JobErrors, JobParams, security, TAG } from "./shared.js";

const route = createRoute({
  method: "get",
  path: "/bulk/{type}/{id}/download",
  tags: [TAG],
  security,
  summary: "Results as CSV, streamed: file=full (every row), valid or not_found (gen 1 name: type=)",
  request: {
    params: JobParams,
    query: z.object({
      file: z.enum(DOWNLOAD_FILES).optional(),
      type: z.enum(DOWNLOAD_FILES).optional().openapi({ description: "Former name of `file`" }),
    }),
  },
  responses: { 200: { description: "CSV", content: { "text/csv": { schema: z.string() } } }, ...JobErrors },
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
    if (q.file && q.type && q.file !== q.type) throw new ApiError(400, "params_invalid", "The parameter 'type' is the former name of 'file'; send only one of them.");
    const file: DownloadFile = q.file ?? q.type ?? "full";
    await assertOwnJob(c, type, id);
    const job = await onJob(jobStub(c.env, id).download(Date.now(), auth(c).actorId, file));
    const bucket = c.env.BULK_FILES;
    const encoder = new TextEncoder();
    // One result part (one chunk of rows) in memory at a time; parts are read in row order.
    let chunk = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(`\uFEFF${csvLine(job.header)}\r\n`));
      },
      async pull(controller) {
        while (chunk < job.chunks) {
          const part = await bucket.get(resultPartKey(job.prefix, chunk++));
          if (!part) continue;
          const lines = (await part.text())
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as ResultRow)
            .filter(keep[file])
            .map((r) => `${csvLine(r.c)}\r\n`)
            .join("");
          if (lines) {
            controller.enqueue(encoder.encode(lines));
            return;
          }
        }
        controller.close();
      },
    });
    const filename = `${job.name.replace(/[^\w.-]+/g, "_").slice(0, 80) || "bulk"}-${id}-${file}.csv`;
    return new Response(body, {
      status: 200,
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${filename}"` },
    });
  });
}
