import { createRoute, OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppBindings } from "../env.js";
import { paramsInvalidHook } from "./validation.js";

export type ApiApp = OpenAPIHono<AppBindings>;
export type Ctx = Context<AppBindings>;

export function newApiApp(): ApiApp {
  return new OpenAPIHono<AppBindings>({ defaultHook: paramsInvalidHook as never });
}

/**
 * Declares a route once: the zod schemas validate the request and feed the OpenAPI document.
 * Handlers read validated input with `input(c, "query")` and return plain Responses.
 */
export function defineRoute(app: ApiApp, config: RouteConfig, handler: (c: Ctx) => Promise<Response> | Response) {
  app.openapi(createRoute(config), handler as never);
}

export function input<T = Record<string, unknown>>(c: Ctx, target: "json" | "query" | "param"): T {
  return ((c.req as unknown as { valid(t: string): T }).valid(target) ?? {}) as T;
}
