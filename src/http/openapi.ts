import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppBindings } from "../env.js";
import { paramsInvalidHook } from "./validation.js";

export type ApiApp = OpenAPIHono<AppBindings>;
export type Ctx = Context<AppBindings>;

/**
 * An app whose routes are declared with `createRoute` and served with `app.openapi(route, handler)`:
 * the zod schemas validate the request, type `c.req.valid(...)` and feed the OpenAPI document.
 */
export function newApiApp(): ApiApp {
  return new OpenAPIHono<AppBindings>({ defaultHook: paramsInvalidHook });
}
