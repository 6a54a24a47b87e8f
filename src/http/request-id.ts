import type { MiddlewareHandler } from "hono";
import { type RequestIdVariables, requestId } from "hono/request-id";
import { runWithRequestId } from "../request-context.js";

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
    // A handler that returns a Response of its own (the error responses, the agent surface's
    // forwarded answers) replaces the headers hono prepared, so the id is set on the final one.
    const id = c.get("requestId");
    if (c.res.headers.get(REQUEST_ID_HEADER) === id) return;
    try {
      c.res.headers.set(REQUEST_ID_HEADER, id);
    } catch {
      // Immutable headers (a Response straight from fetch): copy it once.
      const res = new Response(c.res.body, c.res);
      res.headers.set(REQUEST_ID_HEADER, id);
      c.res = undefined;
      c.res = res;
    }
  };
}
