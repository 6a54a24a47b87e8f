import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { timeout } from "hono/timeout";
import { ApiError, errorResponse } from "./errors.js";

export const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const REQUEST_DEADLINE_MS = 180_000;

const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/**
 * Caps a request body without reading any of it. A Content-Length over the cap is answered 413 at
 * once; a body without one (Transfer-Encoding: chunked) is counted as the route reads it, and the
 * read fails as soon as the count crosses the cap. Since nothing is read here, a route's
 * authentication runs before the first byte of its body is taken in, and an unread body costs no
 * memory. A read that crossed the cap is answered 413, whatever the reader made of its failure
 * (a JSON parser's 400, a multipart parser's error).
 */
export const limitBody =
  (
    maxBytes = MAX_BODY_BYTES,
    message = `The request body is larger than the ${megabytes(maxBytes)} limit.`,
  ): MiddlewareHandler =>
  async (c, next) => {
    const request = c.req.raw;
    if (!request.body) return next();
    const declared = request.headers.get("content-length");
    if (declared !== null && !request.headers.has("transfer-encoding")) {
      return Number(declared) > maxBytes ? errorResponse(413, "payload_too_large", message) : next();
    }
    const counted = countedBody(request.body, maxBytes, message);
    c.req.raw = new Request(request, { body: counted.body });
    await next();
    if (counted.crossed()) {
      // Replaced, not merged: none of the failed answer's headers belong on the 413.
      c.res = undefined;
      c.res = errorResponse(413, "payload_too_large", message);
    }
  };

/**
 * `body`, read only when its reader asks (nothing is fetched ahead, and `body` is not even locked
 * before the first read), counting its bytes; the read that takes the count past `maxBytes` fails
 * with a 413 ApiError and cancels the rest of `body`.
 */
export function countedBody(body: ReadableStream<Uint8Array>, maxBytes: number, message: string) {
  let source: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let bytes = 0;
  let crossed = false;
  const counted = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        source ??= body.getReader();
        const { done, value } = await source.read();
        if (done) return controller.close();
        bytes += value.byteLength;
        if (bytes <= maxBytes) return controller.enqueue(value);
        crossed = true;
        controller.error(new ApiError(413, "payload_too_large", message));
        await source.cancel("over the body limit").catch(() => {});
      },
      cancel: (reason) => (source ? source.cancel(reason) : body.cancel(reason)),
    },
    { highWaterMark: 0 },
  );
  return { body: counted, crossed: () => crossed };
}

/**
 * 504 once the request has run past the deadline. The handler is not cancelled (nothing can cancel
 * it): `pastDeadline` tells it that its answer will never be given.
 */
export const withDeadline = (ms = REQUEST_DEADLINE_MS): MiddlewareHandler =>
  timeout(ms, (c) => {
    c.set("pastDeadline", true);
    return new HTTPException(504, { message: `The request ran past the ${Math.round(ms / 1000)}-second limit.` });
  });
