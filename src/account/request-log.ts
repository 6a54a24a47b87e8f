import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { db } from "../db/client.js";
import { requestLogs } from "../db/schema.js";
import type { AppBindings } from "../env.js";
import { loggedUri } from "./log-uri.js";

/** True when a real endpoint (not only middleware) matched this method and path. */
export function hasEndpoint(c: Parameters<MiddlewareHandler>[0]): boolean {
  return matchedRoutes(c).some((r) => r.method !== "ALL");
}

function routePattern(c: Parameters<MiddlewareHandler>[0]): string {
  const routes = matchedRoutes(c).filter((r) => r.method !== "ALL");
  return routes.at(-1)?.path ?? c.req.path;
}

/**
 * Logs every authenticated /v1 request after the response is ready, through waitUntil, so the
 * write never sits on the response path.
 */
export function logRequests(now: () => number = Date.now): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const started = now();
    c.set("requestStartedAt", started);
    await next();
    const auth = c.get("auth");
    if (!auth) return;
    const url = new URL(c.req.url);
    const row = {
      accountId: auth.account.id,
      actorAccountId: auth.actor.id,
      apiKeyId: auth.keyId,
      httpMethod: c.req.method,
      endpoint: routePattern(c),
      uri: loggedUri(url),
      statusCode: c.res.status,
      durationMs: Math.max(0, now() - started),
      type: c.get("logType") ?? null,
      usageCategory: c.get("logCost") ? (c.get("usageCategory") ?? null) : null,
      cost: c.get("logCost") ?? false,
      ipAddress: c.req.header("cf-connecting-ip") ?? null,
      userAgent: c.req.header("user-agent")?.slice(0, 512) ?? null,
      country: (c.req.raw as { cf?: { country?: string } }).cf?.country ?? null,
      createdAt: started,
    };
    c.executionCtx.waitUntil(
      db(c.env.DB)
        .insert(requestLogs)
        .values(row)
        .run()
        .then(() => undefined, (err) => console.error("request log write failed", err)),
    );
  };
}
