import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../env.js";
import { ApiError } from "./errors.js";

/**
 * Route middleware for routes whose body is validated by their `createRoute` schema: a body that
 * is not JSON answers 400 params_invalid with `message` (an example of the body the route wants)
 * instead of the validator's generic "Malformed JSON". Hono caches the parsed body on the
 * request, so the validator that runs next does not parse it again.
 */
export const jsonBodyOr400 =
  (message: string): MiddlewareHandler<AppBindings> =>
  async (c, next) => {
    try {
      await c.req.json();
    } catch {
      throw new ApiError(400, "params_invalid", message);
    }
    await next();
  };
