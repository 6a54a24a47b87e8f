import type { MiddlewareHandler } from "hono";
import { type RequestIdVariables, requestId } from "hono/request-id";
import { runWithRequestId } from "../request-context.js";
import { setOnFinalResponse } from "./final-header.js";

export const REQUEST_ID_HEADER = "X-Request-Id";

/**
 * `X-Request-Id` on every response, the same id in every error body and log line. A well-formed
 * incoming id (at most 255 of [A-Za-z0-9_=-], hono's rule) is kept so a caller can follow its own id
 * through our logs; otherwise a UUID is made.
 */
export function withRequestId(): MiddlewareHandler<{ Variables: RequestIdVariables }> {
  const assign = requestId({ headerName: REQUEST_ID_HEADER });
  return async (c, next) => {
    await assign(c, () => {
      const id = c.get("requestId");
      return runWithRequestId(id, c.req.header(REQUEST_ID_HEADER) === id, next);
    });
    setOnFinalResponse(c, REQUEST_ID_HEADER, c.get("requestId"));
  };
}
