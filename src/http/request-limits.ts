import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { timeout } from "hono/timeout";
import { errorResponse } from "./errors.js";

export const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const REQUEST_DEADLINE_MS = 180_000;

/** 413 from Content-Length up front, or while the body streams, before anything is buffered. */
export const limitBody = (maxBytes = MAX_BODY_BYTES): MiddlewareHandler =>
  bodyLimit({
    maxSize: maxBytes,
    onError: () =>
      errorResponse(413, "payload_too_large", `The request body is larger than the ${Math.round(maxBytes / 1024 / 1024)} MB limit.`),
  });

/** 504 once the request has run past the deadline. */
export const withDeadline = (ms = REQUEST_DEADLINE_MS): MiddlewareHandler =>
  timeout(ms, () => new HTTPException(504, { message: `The request ran past the ${Math.round(ms / 1000)}-second limit.` }));
