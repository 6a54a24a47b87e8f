import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../env.js";
import { errorResponse } from "../http/errors.js";
import { timingSafeEqualText } from "../platform/crypto.js";

/**
 * Operator-only routes (/operator/...): X-Operator-Secret must equal env.OPERATOR_SECRET, compared
 * in constant time. With no secret configured the routes are off (503) rather than open.
 */
export const operatorOnly = (): MiddlewareHandler<AppBindings> => async (c, next) => {
  const expected = c.env.OPERATOR_SECRET;
  if (!expected)
    return errorResponse(503, "service_unavailable", "Operator routes are disabled: OPERATOR_SECRET is not set.");
  const given = c.req.header("X-Operator-Secret");
  if (!given) return errorResponse(401, "authentication_failed", "X-Operator-Secret is required.");
  if (!(await timingSafeEqualText(given, expected)))
    return errorResponse(401, "authentication_failed", "X-Operator-Secret is wrong.");
  await next();
};
