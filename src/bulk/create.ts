import { Readable } from "node:stream";
import Busboy from "busboy";
import { and, count, eq, gte } from "drizzle-orm";
import { db } from "../db/client.js";
import { bulkJobs } from "../db/schema-bulk.js";
import { assertDeliverableUrl } from "../delivery/index.js";
import type { Env } from "../env.js";
import { ApiError } from "../http/errors.js";
import { MAX_BODY_BYTES } from "../http/request-limits.js";
import { secondsToUtcMidnight } from "../limits/account-limiter.js";
import { DAY_MS } from "../platform/time.js";
import { csvRecords } from "./csv-source.js";
import { BULK_END_WEBHOOK_EVENT, bulkEndWebhooks } from "./end-event.js";
import { dataRecords, type IngestResult, ingestRows, listRecords } from "./ingest.js";
import type { JobConfig, JobView } from "./job-view.js";
import { jobStub } from "./jobs.js";
import { syncIndex } from "./jobs-table.js";
import { type CreateOptions, parseCreateOptions, rowOptions } from "./options.js";
import { resultHeader } from "./results.js";
import { deletePrefix, uploadKey } from "./storage.js";
import {
  type BulkType,
  CHUNK_ROWS,
  CREATES_PER_TYPE_PER_DAY,
  JOB_VALIDITY_MS,
  MAX_UPLOAD_BYTES,
  neededColumns,
} from "./types.js";

/** R2 multipart parts: all but the last the same size, at least 5 MiB. */
export const PART_BYTES = 5 * 1024 * 1024;

interface Upload {
  fields: Record<string, unknown>;
  file: { name: string | null; bytes: number } | null;
}

/** What the text fields of a multipart create may weigh together: the 4 MB of a JSON create. */
const MAX_FIELD_BYTES = MAX_BODY_BYTES;

/**
 * Streams a multipart body: text fields are collected, the `file` part goes to R2 in 5 MiB parts
 * as it arrives (never the whole file in memory). busboy is used because it hands file parts over
 * as streams; parsers that buffer each part would hold the whole upload. Its byte counts are the
 * upload caps: the first refusal (a file past MAX_UPLOAD_BYTES, fields past MAX_FIELD_BYTES, a
 * wrong part) stops reading there, so the caller is answered without sending the rest.
 */
async function receiveMultipart(env: Env, request: Request, prefix: string): Promise<Upload> {
  if (!request.body) throw new ApiError(400, "params_invalid", "The request has no body.");
  const fields: Record<string, unknown> = {};
  let fieldBytes = 0;
  let file: Upload["file"] = null;
  let fileStream: Readable | null = null;
  let failure: unknown;
  const uploads: Promise<void>[] = [];
  let bb: Busboy.Busboy;
  try {
    // busboy signals its limit when a file reaches it (it cannot know whether more follows): one byte more lets a file of exactly MAX_UPLOAD_BYTES through.
    bb = Busboy({
      headers: { "content-type": request.headers.get("content-type") ?? "" },
      limits: { fileSize: MAX_UPLOAD_BYTES + 1, files: 1, fields: 100, fieldSize: MAX_FIELD_BYTES },
    });
  } catch (err) {
    // busboy throws from its constructor when the content type has no boundary (or is not multipart at all).
    const why = /boundary/i.test((err as Error).message)
      ? "its Content-Type has no boundary parameter (multipart/form-data; boundary=...)"
      : (err as Error).message;
    throw new ApiError(
      400,
      "params_invalid",
      `The multipart body cannot be read: ${why}. Let your HTTP client build the multipart body (curl -F, FormData) instead of setting the Content-Type by hand.`,
    );
  }
  // why: the Workers ReadableStream type and node:stream/web's differ in name only (same object at runtime).
  const source = Readable.fromWeb(request.body as never);
  const done = new Promise<void>((resolve, reject) => {
    /** The first refusal ends the upload: the rest of the body is not read, a file under way is abandoned (streamToR2 aborts it). */
    const stop = (err: unknown) => {
      failure ??= err;
      source.unpipe(bb);
      source.destroy();
      fileStream?.destroy(failure as Error);
      bb.destroy();
      reject(failure);
    };
    const refuse = (status: 400 | 413, message: string) =>
      stop(new ApiError(status, status === 413 ? "payload_too_large" : "params_invalid", message));
    bb.on("field", (name, value, info) => {
      fieldBytes += value.length;
      if (info.valueTruncated || fieldBytes > MAX_FIELD_BYTES) {
        return refuse(
          413,
          `The form fields are larger than ${MAX_FIELD_BYTES / 1024 / 1024} MB together; send the rows as a 'file' part (up to ${MAX_UPLOAD_BYTES / 1024 / 1024} MB).`,
        );
      }
      // Repeated fields are lists (departments[]=a&departments[]=b).
      const key = name.replace(/\[\]$/, "");
      const prev = fields[key];
      fields[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    });
    bb.on("fieldsLimit", () => refuse(400, "The multipart body has more than 100 fields."));
    bb.on("filesLimit", () => refuse(400, "Send one file per job."));
    bb.on("file", (name, stream, info) => {
      // Its failures reach `stop` through streamToR2; a refused part is destroyed unread by busboy.
      stream.on("error", () => {});
      if (name !== "file") return refuse(400, `The file part must be named 'file' (got '${name}').`);
      const type = info.mimeType.toLowerCase();
      if (
        !["text/csv", "application/csv", "text/plain", "application/vnd.ms-excel", "application/octet-stream"].includes(
          type,
        )
      ) {
        return refuse(400, `The parameter 'file' is invalid: expected a CSV file (text/csv), got ${info.mimeType}.`);
      }
      file = { name: info.filename ?? null, bytes: 0 };
      fileStream = stream;
      const current = file;
      stream.on("limit", () =>
        refuse(413, `The file is larger than the ${MAX_UPLOAD_BYTES / 1024 / 1024} MB bulk upload limit.`),
      );
      uploads.push(
        streamToR2(env.BULK_FILES, uploadKey(prefix), stream, (n) => (current.bytes = n)).then(() => {}, stop),
      );
    });
    bb.on("close", resolve);
    bb.on("error", (err) =>
      stop(new ApiError(400, "params_invalid", `The multipart body could not be read: ${(err as Error).message}.`)),
    );
    // A body cut off (the client went away) or over the request's cap (src/http/request-limits.ts).
    source.on("error", (err) =>
      stop(
        err instanceof ApiError
          ? err
          : new ApiError(400, "params_invalid", `The upload ended before its last part: ${err.message}.`),
      ),
    );
  });
  source.pipe(bb);
  try {
    await done;
  } finally {
    // A refused upload's R2 part is aborted before the caller cleans up after it.
    await Promise.all(uploads);
  }
  if (failure) throw failure;
  return { fields, file };
}

/**
 * Node stream -> R2 object through a multipart upload of PART_BYTES parts (R2 requires every part
 * but the last to be the same size, at least 5 MiB), or one put when it is smaller than a part.
 * One part buffer is held, and reused: incoming chunks are copied into it, a full part is sent
 * (R2 has taken its bytes when uploadPart resolves), and whatever overflows starts the next one. A
 * fresh buffer per part left 5 MiB of garbage per part for the isolate's GC (about 50 MB per
 * 50 MiB upload, measured by bench/upload-memory.mjs).
 */
export async function streamToR2(
  bucket: R2Bucket,
  key: string,
  stream: AsyncIterable<Uint8Array>,
  onBytes: (n: number) => void = () => {},
) {
  const part = new Uint8Array(PART_BYTES);
  let filled = 0;
  let total = 0;
  let upload: R2MultipartUpload | null = null;
  const parts: R2UploadedPart[] = [];
  const options = { httpMetadata: { contentType: "text/csv" } };
  try {
    for await (const chunk of stream) {
      let at = 0;
      while (at < chunk.byteLength) {
        const n = Math.min(PART_BYTES - filled, chunk.byteLength - at);
        part.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === PART_BYTES) {
          upload ??= await bucket.createMultipartUpload(key, options);
          parts.push(await upload.uploadPart(parts.length + 1, part));
          filled = 0;
        }
      }
      total += chunk.byteLength;
      onBytes(total);
    }
    if (upload) {
      if (filled > 0) parts.push(await upload.uploadPart(parts.length + 1, part.subarray(0, filled)));
      await upload.complete(parts);
    } else {
      await bucket.put(key, part.subarray(0, filled), options);
    }
  } catch (err) {
    if (upload) await upload.abort().catch(() => {});
    throw err;
  }
  return { bytes: total, parts: upload ? parts.length : 0 };
}

/** 429 once an account has created CREATES_PER_TYPE_PER_DAY jobs of a type today (UTC). */
export async function assertCreatesLeft(env: Env, accountId: number, type: string, now: number) {
  const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
  const [row] = await db(env.DB)
    .select({ n: count() })
    .from(bulkJobs)
    .where(and(eq(bulkJobs.accountId, accountId), eq(bulkJobs.type, type), gte(bulkJobs.createdAt, dayStart)));
  if ((row?.n ?? 0) >= CREATES_PER_TYPE_PER_DAY) {
    throw new ApiError(
      429,
      "rate_limit",
      `Daily bulk limit reached: ${CREATES_PER_TYPE_PER_DAY} ${type} jobs per day. The counter resets at 00:00 UTC.`,
      {
        "Retry-After": String(secondsToUtcMidnight(now)),
      },
    );
  }
}

export interface Created {
  job: JobView;
  options: CreateOptions;
}

/**
 * Creates a job from a JSON or multipart body. Everything is checked before the job exists; a
 * refused create removes what it stored in R2 and leaves no index row.
 */
export async function createJob(
  env: Env,
  request: Request,
  type: BulkType,
  accountId: number,
  actorId: number,
  now = Date.now(),
): Promise<Created> {
  await assertCreatesLeft(env, accountId, type.type, now);
  const prefix = crypto.randomUUID();
  let jobId: number | null = null;
  try {
    const contentType = request.headers.get("content-type")?.toLowerCase() ?? "";
    let upload: Upload;
    if (contentType.startsWith("multipart/form-data")) {
      upload = await receiveMultipart(env, request, prefix);
    } else if (contentType.startsWith("application/json") || contentType === "") {
      const body = await request.json().catch(() => {
        throw new ApiError(400, "params_invalid", "The body is not valid JSON.");
      });
      if (!body || typeof body !== "object" || Array.isArray(body))
        throw new ApiError(400, "params_invalid", "The body must be a JSON object.");
      upload = { fields: body as Record<string, unknown>, file: null };
    } else {
      throw new ApiError(400, "params_invalid", "Send the job as JSON or as multipart/form-data with a 'file' part.");
    }
    const options = parseCreateOptions(upload.fields, type);
    const given = [upload.file !== null, options.data !== undefined, options.list !== undefined].filter(Boolean).length;
    if (given !== 1)
      throw new ApiError(
        400,
        "params_invalid",
        given === 0
          ? "The parameter 'file' is required (or send 'data' or 'list')."
          : "Send exactly one of 'file', 'data' or 'list'.",
      );
    if (options.webhook_url) await assertDeliverableUrl(env, options.webhook_url, "webhook_url");
    if (options.notify === true && !options.webhook_url && (await bulkEndWebhooks(env, accountId)).length === 0) {
      throw new ApiError(
        400,
        "params_invalid",
        `The parameter 'notify' needs somewhere to send the end event: a 'webhook_url', or an enabled account webhook for the '${BULK_END_WEBHOOK_EVENT}' event (POST /v1/webhooks with event=${BULK_END_WEBHOOK_EVENT}).`,
      );
    }

    let ingest: IngestResult;
    let source: JobConfig["input"]["source"];
    // Null: detected from the file's first line.
    const delimiter: string | null = options.delimiter ?? null;
    if (upload.file) {
      source = "file";
      if (upload.file.bytes === 0) throw new ApiError(400, "params_invalid", "The file is empty.");
      const object = await env.BULK_FILES.get(uploadKey(prefix));
      if (!object) throw new Error("the upload vanished from R2");
      ingest = await ingestRows(
        env.BULK_FILES,
        prefix,
        type,
        csvRecords(object.body, { delimiter: options.delimiter, field: "file" }),
        options,
        "file",
      );
    } else if (options.data !== undefined) {
      source = "data";
      ingest = await ingestRows(
        env.BULK_FILES,
        prefix,
        type,
        dataRecords(options.data, options.delimiter ?? ","),
        options,
        "data",
      );
    } else if (options.list !== undefined) {
      source = "list";
      ingest = await ingestRows(
        env.BULK_FILES,
        prefix,
        type,
        listRecords(options.list),
        { ...options, has_header: options.has_header ?? false },
        "list",
      );
    } else {
      throw new Error("no input after checking that exactly one was given");
    }

    const values = rowOptions(options);
    const config: JobConfig = {
      v: 1,
      input: {
        source,
        has_header: source === "list" ? (options.has_header ?? false) : (options.has_header ?? true),
        delimiter,
        original_file_name: upload.file?.name ?? null,
        rows: ingest.counts.input,
        fields: ingest.fieldIndexes,
      },
      options: values,
      notify: options.notify ?? Boolean(options.webhook_url),
      ...(options.webhook_url ? { webhook: { url: options.webhook_url } } : {}),
    };
    const [row] = await db(env.DB)
      .insert(bulkJobs)
      .values({
        accountId,
        type: type.type,
        name: options.name,
        status: "pending",
        rowsInput: ingest.counts.input,
        snapshot: {},
        createdAt: now,
        updatedAt: now,
        expiredAt: now + JOB_VALIDITY_MS,
      })
      .returning({ id: bulkJobs.id });
    if (!row) throw new Error("inserting a bulk job returned no row");
    jobId = row.id;
    const job = await jobStub(env, jobId).init(
      {
        id: jobId,
        accountId,
        type: type.type,
        name: options.name,
        createdAt: now,
        prefix,
        config,
        fields: ingest.fields,
        header: ingest.header,
        resultHeader: resultHeader(type, values),
        chunks: ingest.chunks,
        chunkRows: CHUNK_ROWS,
        counts: ingest.counts,
        needs: neededColumns(type),
      },
      actorId,
    );
    await syncIndex(env, job);
    return { job, options };
  } catch (err) {
    await deletePrefix(env.BULK_FILES, prefix).catch(() => {});
    if (jobId !== null)
      await db(env.DB)
        .delete(bulkJobs)
        .where(eq(bulkJobs.id, jobId))
        .catch(() => {});
    throw err;
  }
}
