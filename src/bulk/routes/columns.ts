import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { csvRecords, MAX_FIRST_LINE_BYTES } from "../csv-source.js";
import { previewColumns } from "../ingest.js";
import { parseCreateOptions } from "../options.js";
import { JobErrors, security, TAG, TypeParam, typeOf } from "./shared.js";

/** The first lines of a file: enough for a header row and the rows that decide the columns. */
const MAX_TEXT_CHARS = 4 * MAX_FIRST_LINE_BYTES;

const Body = z
  .object({
    text: z
      .string()
      .min(1)
      .max(MAX_TEXT_CHARS)
      .openapi({ description: `The file's first lines (at most ${MAX_TEXT_CHARS / 1024} KiB), as UTF-8 text` }),
  })
  .catchall(z.unknown())
  .openapi("BulkColumnsRequest", {
    description:
      "Also takes the create options that decide columns: delimiter, has_header, input_type and *_field_index",
  });

const ColumnsSchema = z
  .object({
    data: z.object({
      header: z.array(z.string()).nullable(),
      rows: z
        .array(z.array(z.string()))
        .openapi({ description: "The first rows after the header (up to 20), as the job would read them" }),
      fields: z
        .record(z.string(), z.number().int())
        .openapi({ description: "Create option naming each column (domain_field_index) -> zero-based column" }),
      problem: z.string().nullable().openapi({
        description: "Why no usable columns were found (what a create would answer with 422); null when fields are set",
      }),
    }),
  })
  .openapi("BulkColumns");

const route = createRoute({
  method: "post",
  path: "/bulk/{type}/columns",
  tags: [TAG],
  security,
  summary: "The columns a job would use for a file, from its first lines (nothing is stored)",
  description:
    "Reads the first lines exactly as a create reads a file (delimiter, header row, the first 20 rows) and chooses the columns the same way: explicit *_field_index options, then header names, then values. A dashboard shows this before the upload, so the columns can be changed first.",
  request: { params: TypeParam, body: { required: true, content: { "application/json": { schema: Body } } } },
  responses: {
    200: { description: "Columns", content: { "application/json": { schema: ColumnsSchema } } },
    ...JobErrors,
  },
});

export function registerColumns(app: ApiApp) {
  app.openapi(route, async (c) => {
    const type = typeOf(c.req.valid("param").type);
    const { text, ...rest } = c.req.valid("json");
    const options = parseCreateOptions({ name: "column preview", ...rest }, type);
    const bytes = new Blob([text]).stream();
    const preview = await previewColumns(
      type,
      csvRecords(bytes, { delimiter: options.delimiter, field: "text" }),
      options,
      "text",
    );
    return c.json(
      { data: { header: preview.header, rows: preview.rows, fields: preview.fieldIndexes, problem: preview.problem } },
      200,
    );
  });
}
