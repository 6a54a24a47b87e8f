import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { createJob } from "../create.js";
import { launchRefusal, startJob } from "../launch.js";
import { MAX_COLUMNS, MAX_ROWS_TEXT, MAX_UPLOAD_BYTES, thousands } from "../types.js";
import { auth, JobErrors, security, TAG, TypeParam, typeOf } from "./shared.js";

const route = createRoute({
  method: "post",
  path: "/bulk/{type}",
  tags: [TAG],
  security,
  summary: "Create a bulk job",
  description: `JSON, or multipart/form-data with a \`file\` part (text/csv, up to ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB and ${MAX_ROWS_TEXT} rows, at most ${thousands(MAX_COLUMNS)} columns and a 64 KiB first line; the 4 MB limit of other routes does not apply; larger: 413). Input is exactly one of \`file\`, \`data\` (rows; a JSON string in multipart) or \`list\` (one value per line). Fields: name (3-200 chars), zero-based *_field_index (columns are detected from the header row and the first rows when unset; none usable: 422), delimiter, has_header, launch, webhook_url, notify (the end event also goes to the account's bulk_job_ended webhooks), total, and the type's options (GET /bulk/types). Former names (notifie, sources, verify, maximum, skip, phone, full, valid, one-based column_*, email_type and department objects) are translated. Every row of the input is accounted for: blank, invalid, duplicate and skipped rows are kept and counted.`,
  request: { params: TypeParam },
  responses: {
    201: {
      description: "Created; `message` says why a requested launch did not happen",
      content: {
        "application/json": {
          schema: z.object({ data: z.object({ id: z.number().int(), message: z.string().optional() }) }),
        },
      },
    },
    413: JobErrors[400],
    ...JobErrors,
  },
});

export function registerCreateJob(app: ApiApp) {
  app.openapi(route, async (c) => {
    const type = typeOf(c.req.valid("param").type);
    const who = auth(c);
    c.set("logType", `Bulk ${type.decl.label}`);
    const { job, options } = await createJob(c.env, c.req.raw, type, who.accountId, who.actorId);
    if (!options.launch) return c.json({ data: { id: job.id } }, 201);
    // The job exists whatever happens next; a launch that cannot happen is explained, not an error.
    const refusal = await launchRefusal(c.env, type, who);
    if (refusal)
      return c.json({ data: { id: job.id, message: `Bulk created but not launched: ${refusal.message}` } }, 201);
    try {
      await startJob(c.env, type, job.id, who, "launch");
    } catch (err) {
      if (err instanceof ApiError)
        return c.json({ data: { id: job.id, message: `Bulk created but not launched: ${err.message}` } }, 201);
      throw err;
    }
    return c.json({ data: { id: job.id, message: "Bulk created and launched." } }, 201);
  });
}
