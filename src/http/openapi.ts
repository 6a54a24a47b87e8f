import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AppBindings } from "../env.js";
import { paramsInvalidHook } from "./validation.js";

export type ApiApp = OpenAPIHono<AppBindings>;
export type Ctx = Context<AppBindings>;

/** The query parameter names a route's schema declares (the request logger keeps only these). */
function declaredQueryNames(route: RouteConfig): readonly string[] {
  const query = route.request?.query as { shape?: Record<string, unknown> } | undefined;
  return query?.shape ? Object.keys(query.shape) : [];
}

/**
 * An app whose routes are declared with `createRoute` and served with `app.openapi(route, handler)`:
 * the zod schemas validate the request, type `c.req.valid(...)` and feed the OpenAPI document.
 * Each route also tells the request (`declaredQuery`) which query parameters it declares, before
 * its own middleware runs, so a log row can leave out everything else.
 */
export function newApiApp(): ApiApp {
  const app = new OpenAPIHono<AppBindings>({ defaultHook: paramsInvalidHook });
  const register = app.openapi;
  app.openapi = ((route: RouteConfig, handler: never, hook?: never) => {
    const names = declaredQueryNames(route);
    const declare: MiddlewareHandler<AppBindings> = (c, next) => {
      c.set("declaredQuery", names);
      return next();
    };
    const own = route.middleware ? (Array.isArray(route.middleware) ? route.middleware : [route.middleware]) : [];
    return register({ ...route, middleware: [declare, ...own] }, handler, hook);
  }) as typeof app.openapi;
  return app;
}
