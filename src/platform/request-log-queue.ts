import type { Env } from "../env.js";
import { logError } from "../request-context.js";
import { boundedMap } from "./isolate-state.js";
import type { RequestLogMessage, RequestLogPacket, RequestLogRow } from "./request-log-row.js";

export type { RequestLogMessage, RequestLogPacket, RequestLogRow } from "./request-log-row.js";
/**
 * How request-log rows reach D1: not one INSERT per request, but one queue message per batch of
 * requests that ended together (a packet of rows), consumed in batches (wrangler.toml: up to 100
 * messages or 1 s) and written in one D1 batch.
 *
 * Why a queue and not an in-isolate buffer: once `send` resolves, the row is the queue's, so an
 * isolate that dies right after answering loses nothing; a batch whose D1 write fails is retried
 * whole (and after max_retries lands in the dead-letter queue), and the unique `request_id` makes a
 * redelivered batch insert nothing twice. /v1/logs shows a request once its batch is consumed,
 * about a second after it ended.
 */
export { REQUEST_LOG_QUEUE } from "./request-log-row.js";

/**
 * Rows wait this long in the isolate so the rows of requests ending close together go to the queue
 * in one message (one queue call and one message per batch instead of per request: a message per
 * row cost a billed call more CPU in `sendBatch` and the queue than any other step of its log
 * row, `npm run bench -- profile`). The request whose row opens
 * a batch sets the one timer, then sends every row added by then and keeps its own promise (its
 * waitUntil) open until the queue has accepted them, or they are in D1; the requests that add rows
 * to an open batch end at once, with no timer of their own. So a row is always held by a request
 * that is still running until it is the queue's: an isolate that dies after answering loses
 * nothing more than with one send per request.
 *
 * Why the others do not wait for the sender: a request that awaits only work another request does
 * is ended by the runtime ("Promise will never complete"), and I/O belongs to the request that
 * started it.
 */
export const LOG_WAIT_MS = 20;
/** A queue message holds at most 128 KB; a margin is kept for the envelope. */
const MAX_BATCH = 50;
const MAX_BATCH_BYTES = 100_000;

/** A row whose size is at most this fills a full batch (MAX_BATCH rows) within MAX_BATCH_BYTES. */
const SMALL_ROW = MAX_BATCH_BYTES / MAX_BATCH;

/**
 * At least the length of `JSON.stringify(row)`, without writing it: a string's characters escaped
 * at most 6 to 1, a number at most 24 characters, a literal at most 5: about 15 times quicker than
 * writing the row's JSON only to count it, on every logged request.
 */
function sizeBound(row: RequestLogMessage): number {
  let n = 2;
  for (const key in row) {
    const value: unknown = row[key as keyof RequestLogMessage];
    if (value !== null && typeof value === "object") return JSON.stringify(row).length;
    n += key.length + 4 + (typeof value === "string" ? 6 * value.length + 2 : 24);
  }
  return n;
}

/** A row's serialised size as a batch counts it: its bound when small (most rows), else its JSON's length. */
function sizeOf(row: RequestLogMessage): number {
  const bound = sizeBound(row);
  return bound <= SMALL_ROW ? bound : JSON.stringify(row).length;
}

/** The waiting rows cut into packets of one message each (by count and by serialised size). */
function chunks(rows: RequestLogMessage[]): RequestLogMessage[][] {
  const out: RequestLogMessage[][] = [];
  let current: RequestLogMessage[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = sizeOf(row);
    if (current.length && (current.length === MAX_BATCH || bytes + size > MAX_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

/** Rows waiting per queue binding (a test may pass its own queue: its rows never mix with others). */
const pendingRows = boundedMap<Queue, RequestLogMessage[]>("requestLogBatches");

/** Hands one row to the queue (batched with its neighbours); without the binding it is inserted directly. */
export async function enqueueLogRow(env: Env, row: RequestLogRow): Promise<void> {
  const message: RequestLogMessage = { ...row, requestId: row.requestId ?? crypto.randomUUID() };
  const queue = env.REQUEST_LOGS;
  if (!queue) return insertLogRows(env, [message]);
  const open = pendingRows.get(queue);
  if (open) {
    open.push(message);
    return;
  }
  const batch = [message];
  pendingRows.set(queue, batch);
  await new Promise((resolve) => setTimeout(resolve, LOG_WAIT_MS));
  // Rows added from now on open the next batch.
  if (pendingRows.get(queue) === batch) pendingRows.delete(queue);
  const failures: unknown[] = [];
  for (const messages of chunks(batch)) {
    try {
      await queue.send({ rows: messages });
    } catch (err) {
      // The queue refused them: write them the slow way rather than lose them.
      logError("request-logs queue send failed; writing the rows directly", err);
      await insertLogRows(env, messages).catch((e: unknown) => failures.push(e));
    }
  }
  if (failures.length) throw failures[0];
}

/**
 * The columns a log row fills, in the order of the JSON arrays insertLogRows binds (`id` is the
 * table's own). A column added to request_logs that rows fill must be added here.
 */
const LOG_COLUMNS = [
  ["account_id", (r) => r.accountId],
  ["actor_account_id", (r) => r.actorAccountId],
  ["api_key_id", (r) => r.apiKeyId ?? null],
  ["http_method", (r) => r.httpMethod],
  ["endpoint", (r) => r.endpoint],
  ["uri", (r) => r.uri],
  ["status_code", (r) => r.statusCode],
  ["duration_ms", (r) => r.durationMs],
  ["type", (r) => r.type ?? null],
  ["usage_category", (r) => r.usageCategory ?? null],
  ["cost", (r) => (r.cost ? 1 : 0)],
  ["source", (r) => r.source ?? "api"],
  ["ip_address", (r) => r.ipAddress ?? null],
  ["user_agent", (r) => r.userAgent ?? null],
  ["country", (r) => r.country ?? null],
  ["oauth_client_id", (r) => r.oauthClientId ?? null],
  ["created_at", (r) => r.createdAt],
  ["request_id", (r) => r.requestId],
] as const satisfies readonly (readonly [string, (row: RequestLogMessage) => string | number | null])[];

/** Rows bound as one JSON parameter per statement (D1 allows 100 parameters, not 100 rows x 18 columns). */
const ROWS_PER_STATEMENT = 100;
const INSERT_LOG_ROWS = `INSERT INTO request_logs (${LOG_COLUMNS.map(([name]) => name).join(", ")})
  SELECT ${LOG_COLUMNS.map((_, i) => `json_extract(value, '$[${i}]')`).join(", ")} FROM json_each(?1) WHERE true
  ON CONFLICT (request_id) DO NOTHING`;

/**
 * Writes rows in one D1 batch (one transaction); rows already written are skipped. One statement
 * per 100 rows, the rows as one JSON parameter: written by hand rather than through the query
 * builder, which cost more CPU than the insert itself on every /v1 request (`npm run bench -- hot`).
 */
export async function insertLogRows(env: Env, rows: RequestLogMessage[]): Promise<void> {
  if (!rows.length) return;
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const json = JSON.stringify(
      rows.slice(i, i + ROWS_PER_STATEMENT).map((row) => LOG_COLUMNS.map(([, value]) => value(row))),
    );
    statements.push(env.DB.prepare(INSERT_LOG_ROWS).bind(json));
  }
  await env.DB.batch(statements);
}

/** A message's rows: a packet's, or the one row of a message sent before rows were packed. */
const rowsOf = (body: RequestLogMessage | RequestLogPacket): RequestLogMessage[] =>
  "rows" in body ? body.rows : [body];

/** Queue consumer: the whole batch in one D1 batch; on failure every message is retried. */
export async function consumeRequestLogs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  try {
    await insertLogRows(
      env,
      batch.messages.flatMap((m) => rowsOf(m.body as RequestLogMessage | RequestLogPacket)),
    );
    batch.ackAll();
  } catch (err) {
    logError(`request-logs batch of ${batch.messages.length} failed; retrying`, err);
    batch.retryAll({ delaySeconds: 1 });
  }
}
