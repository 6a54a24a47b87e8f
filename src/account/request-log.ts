import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AuthContext } from "../auth/authenticate.js";
import type { AppBindings } from "../env.js";
import { clientCountry } from "../platform/client-country.js";
import { loggedUri } from "../platform/log-uri.js";
import { enqueueLogRow, type RequestLogRow } from "../platform/request-log-queue.js";
import { currentLogRowId, logError } from "../request-context.js";
import { logTypeOf } from "./log-retention.js";

/** True when a real endpoint (not only middleware) matched this method and path. */
export function hasEndpoint(c: Parameters<MiddlewareHandler>[0]): boolean {
  return matchedRoutes(c).some((r) => r.method !== "ALL");
}

function routePattern(c: Parameters<MiddlewareHandler>[0]): string {
  const routes = matchedRoutes(c).filter((r) => r.method !== "ALL");
  return routes.at(-1)?.path ?? c.req.path;
}

/**
 * The log row of one finished request. The one place that decides a row's contents; how rows
 * reach D1 is request-log-queue.ts's business.
 */
export function buildLogRow(c: Context<AppBindings>, auth: AuthContext, started: number, ended: number): RequestLogRow {
  const url = new URL(c.req.url);
  const endpoint = routePattern(c);
  return {
    accountId: auth.account.id,
    actorAccountId: auth.actor.id,
    apiKeyId: auth.keyId,
    oauthClientId: auth.oauthClientId ?? null,
    httpMethod: c.req.method,
    endpoint,
    uri: loggedUri(url, c.get("declaredQuery") ?? []),
    statusCode: c.res.status,
    durationMs: Math.max(0, ended - started),
    type: c.get("logType") ?? logTypeOf(endpoint),
    // Written from the limiter's decision when the call may be billed (logRequests).
    usageCategory: null,
    cost: false,
    source: auth.session ? "website" : "api",
    ipAddress: c.req.header("cf-connecting-ip") ?? null,
    userAgent: c.req.header("user-agent")?.slice(0, 512) ?? null,
    country: clientCountry(c.req.raw, ended),
    createdAt: started,
    requestId: currentLogRowId(),
  };
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
    // The dashboard reads /v1 to draw its pages; those reads are not the account's requests. What a
    // person does there (a "Try it" call, a change) is logged, with source "website".
    if (auth.session?.pageRead) return;
    const row = buildLogRow(c, auth, started, now());
    const env = c.env;
    const write = (r: RequestLogRow) => enqueueLogRow(env, r).catch((err) => logError("request log write failed", err));
    const billing = c.get("billing");
    if (!billing) return c.executionCtx.waitUntil(write(row));
    // The row waits for the limiter's decision, and is written by whichever request holds it last
    // (this one if the decision is already known, else the one that receives it).
    const category = c.get("usageCategory") ?? null;
    const written = billing.whenDecided((billed) =>
      write({ ...row, cost: billed, usageCategory: billed ? category : null }),
    );
    if (written) c.executionCtx.waitUntil(written);
  };
}
