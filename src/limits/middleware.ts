import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../env.js";
import { errorResponse } from "../http/errors.js";
import { withHeaders } from "../http/headers.js";
import { spendOne } from "../platform/throttle.js";
import { limitSnapshot } from "./account-limiter.js";
import { admitRequest, groupOnly, limiterFor } from "./admission.js";
import type { RateGroup } from "./groups.js";
import { fixedLimitHeaders, rateLimitHeaders } from "./headers.js";
import { planLimits } from "./rate-table.js";

/** A non-capability route that belongs to a row of the plan table (e.g. /v1/me). */
export function tableLimit(group: RateGroup, opts: { withBalances?: boolean } = {}): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    // No credential was checked (unknown path or wrong method): nothing to count.
    if (!c.get("auth")) return next();
    const { account } = c.get("auth");
    const admission = await admitRequest(c.env, {
      accountId: account.id,
      plan: account.plan,
      capability: groupOnly(group),
      extraCost: {},
      now: Date.now(),
      withBalances: opts.withBalances,
      waitUntil: (p) => c.executionCtx.waitUntil(p),
    });
    if (!admission.admitted) return withHeaders(admission.refusal, admission.headers);
    if (admission.balances) c.set("admittedBalances", admission.balances);
    await next();
    withHeaders(c.res, admission.headers);
  };
}

/**
 * Fixed limits, the same on every plan: X-RateLimit-* on success, only Retry-After on 429.
 * Scope "account" counts per (owner) account on its limiter, "ip" per client address on the
 * address's Throttle (src/platform/throttle.ts).
 */
export function fixedLimit(opts: {
  name: string;
  limit: number;
  windowMs: number;
  scope: "account" | "ip";
  methods?: string[];
}): MiddlewareHandler<AppBindings> {
  const per = opts.windowMs >= 3_600_000 ? "hour" : opts.windowMs >= 60_000 ? "minute" : "second";
  return async (c, next) => {
    if (opts.methods && !opts.methods.includes(c.req.method)) return next();
    if (opts.scope === "account" && !c.get("auth")) return next();
    // An account's window lives on its limiter; a client address belongs to no account: its
    // window is on the address's Throttle, with the other per-address doors.
    const r =
      opts.scope === "account"
        ? await limiterFor(c.env, c.get("auth").account.id).fixedWindow(
            opts.name,
            opts.limit,
            opts.windowMs,
            Date.now(),
          )
        : {
            limit: opts.limit,
            ...(await spendOne(c.env, {
              subject: `ip:${c.req.header("cf-connecting-ip") ?? "unknown"}`,
              window: opts.name,
              limit: opts.limit,
              windowMs: opts.windowMs,
            })),
          };
    if (!r.allowed) {
      return errorResponse(
        429,
        "rate_limit",
        `Rate limit reached: ${opts.limit} requests per ${per} on this endpoint. Retry after ${r.resetSeconds} seconds.`,
        {
          "Retry-After": String(r.resetSeconds),
        },
      );
    }
    await next();
    withHeaders(c.res, fixedLimitHeaders(r, Math.round(opts.windowMs / 1000)));
  };
}

/**
 * Every answer of a table endpoint carries its group's rate-limit headers (spec, Limits), also the
 * ones decided before the limiter was asked: a 400 for invalid parameters or a refused webhook_url.
 * Those requests are not counted; the headers come from a read of the limiter (none at all on a
 * plan without limits in the group), with the same values the next admission would start from.
 */
export function rateLimitHeadersOnEveryAnswer(group: RateGroup | null): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    await next();
    const auth = c.get("auth");
    if (!group || !auth || c.res.headers.has("x-second-rate-limit")) return;
    const { account } = auth;
    const now = Date.now();
    const limits = planLimits(account.plan, group);
    const snapshot =
      !limits.second && !limits.minute && !limits.daily
        ? limitSnapshot(limits, { second: 0, minute: 0, daily: 0 }, now)
        : (await limiterFor(c.env, account.id).status(account.plan, [group])).groups[group].snapshot;
    withHeaders(c.res, rateLimitHeaders(snapshot));
  };
}
