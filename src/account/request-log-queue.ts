import { db } from "../db/client.js";
import { requestLogs } from "../db/schema.js";
import type { Env } from "../env.js";
import type { RequestLogMessage, RequestLogRow } from "./request-log-row.js";
import { logError } from "../request-context.js";

/**
 * How request-log rows reach D1: not one INSERT per request, but one queue message per request,
 * consumed in batches (wrangler.toml: up to 100 messages or 1 s) and written in one D1 batch.
 *
 * Why a queue and not an in-isolate buffer: once `send` resolves, the row is the queue's, so an
 * isolate that dies right after answering loses nothing; a batch whose D1 write fails is retried
 * whole (and after max_retries lands in the dead-letter queue), and the unique `request_id` makes a
 * redelivered batch insert nothing twice. /v1/logs shows a request once its batch is consumed,
 * about a second after it ended.
 */
export const REQUEST_LOG_QUEUE = "request-logs";

export type { RequestLogMessage, RequestLogRow } from "./request-log-row.js";

/** D1 allows 100 bound parameters per statement; a row binds one per column. */
const ROWS_PER_STATEMENT = 5;

/** Hands one row to the queue; without the binding (a config that lacks it) it is inserted directly. */
export async function enqueueLogRow(env: Env, row: RequestLogRow): Promise<void> {
  const message: RequestLogMessage = { ...row, requestId: row.requestId ?? crypto.randomUUID() };
  if (env.REQUEST_LOGS) {
    try {
      await env.REQUEST_LOGS.send(message);
      return;
    } catch (err) {
      // The queue refused it: write it the slow way rather than lose it.
      logError("request-logs queue send failed; writing the row directly", err);
    }
  }
  await insertLogRows(env, [message]);
}

/** Writes rows in one D1 batch (one transaction); rows already written are skipped. */
export async function insertLogRows(env: Env, rows: RequestLogMessage[]): Promise<void> {
  if (!rows.length) return;
  const store = db(env.DB);
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    statements.push(store.insert(requestLogs).values(rows.slice(i, i + ROWS_PER_STATEMENT)).onConflictDoNothing({ target: requestLogs.requestId }));
  }
  const [first, ...rest] = statements;
  await store.batch([first!, ...rest]);
}

/** Queue consumer: the whole batch in one D1 batch; on failure every message is retried. */
export async function consumeRequestLogs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  try {
    await insertLogRows(env, batch.messages.map((m) => m.body as RequestLogMessage));
    batch.ackAll();
  } catch (err) {
    logError(`request-logs batch of ${batch.messages.length} failed; retrying`, err);
    batch.retryAll({ delaySeconds: 1 });
  }
}
