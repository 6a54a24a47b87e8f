import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The id of the request being served, reachable from code that has no Hono context (error bodies
 * built deep in a capability, log lines anywhere, work finished in waitUntil). Set once per request
 * by the request-id middleware (src/http/request-id.ts); absent in queue consumers and cron runs.
 * Kept free of HTTP imports so every layer, the engine included, may log through it.
 */
const store = new AsyncLocalStorage<{ id: string; chosenByCaller: boolean }>();

export function currentRequestId(): string | undefined {
  return store.getStore()?.id;
}

/**
 * The `request_id` of a request_logs row: the request id. That column is unique (it makes a
 * redelivered queue batch insert nothing twice), and a caller may send the same X-Request-Id twice,
 * so an id the caller chose gets a unique suffix: the row still starts with the id the caller knows.
 */
export function currentLogRowId(): string | undefined {
  const current = store.getStore();
  if (!current) return undefined;
  return current.chosenByCaller ? `${current.id}.${crypto.randomUUID()}` : current.id;
}

/** Runs `fn` (and everything it awaits or schedules) as part of request `id`. */
export function runWithRequestId<T>(id: string, chosenByCaller: boolean, fn: () => T): T {
  return store.run({ id, chosenByCaller }, fn);
}

const tag = () => `[${currentRequestId() ?? "-"}]`;

/** console.error with the current request id in front, so every log line leads to its request. */
export function logError(message: string, ...rest: unknown[]): void {
  console.error(`${tag()} ${message}`, ...rest);
}

export function logInfo(message: string, ...rest: unknown[]): void {
  console.log(`${tag()} ${message}`, ...rest);
}
