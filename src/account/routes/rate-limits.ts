import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { flushOwed, limiterFor } from "../../limits/admission.js";
import { RATE_GROUPS } from "../../limits/groups.js";
import { RATE_LIMIT_KEYS } from "../../limits/rate-table.js";

const count = z.number().int();
const RateWindow = z
  .object({
    limit: count.openapi({ description: "0: no limit" }),
    used: count,
    remaining: count.nullable().openapi({ description: "null when there is no limit" }),
    reset_seconds: count.nullable(),
  })
  .openapi("RateWindow");
export type RateWindow = z.infer<typeof RateWindow>;
const RateLimit = z
  .union([
    z.object({ enforced: z.literal(false), second: z.null(), minute: z.null(), daily: z.null() }),
    z.object({
      enforced: z.literal(true),
      group: z.string().openapi({ description: "The rate group the endpoint counts against" }),
      second: RateWindow,
      minute: RateWindow,
      daily: RateWindow,
    }),
  ])
  .openapi("RateLimit");
export type RateLimit = z.infer<typeof RateLimit>;
export const RateLimitsSchema = z
  .object({
    data: z.record(z.string(), RateLimit).openapi({ description: "Endpoint key -> its limits and use" }),
    credits: z.record(
      z.string(),
      z.object({ available: z.number(), used: z.number(), allowance: z.number() }).openapi("CreditBalance"),
    ),
    credit_pack: z.object({ size: count, remaining: count }).nullable(),
  })
  .openapi("RateLimits");
export type RateLimits = z.infer<typeof RateLimitsSchema>;

const route = createRoute({
  method: "get",
  path: "/rate-limits",
  tags: ["Account"],
  security,
  summary: "The account's limits and current usage per endpoint group (not rate-limited)",
  responses: {
    200: {
      description: "Limits",
      content: { "application/json": { schema: RateLimitsSchema } },
    },
    ...ErrorResponses,
  },
});

export function registerRateLimitsRoute(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const { account } = c.get("auth");
    // Calls this isolate admitted on its own (groups without limits) are counted before reading.
    await flushOwed(c.env, account.id);
    const status = await limiterFor(c.env, account.id).status(account.plan, [...RATE_GROUPS]);
    const data: Record<string, RateLimit> = {};
    for (const [key, group] of Object.entries(RATE_LIMIT_KEYS)) {
      if (!group) {
        data[key] = { enforced: false, second: null, minute: null, daily: null };
        continue;
      }
      const g = status.groups[group];
      if (!g) throw new Error(`the limiter's status has no rate group ${group}`);
      const window = (limit: number, used: number, reset: number | null) => ({
        limit,
        used,
        remaining: limit ? Math.max(0, limit - used) : null,
        reset_seconds: reset,
      });
      data[key] = {
        enforced: true,
        group,
        second: window(g.limits.second, g.used.second, 1),
        minute: window(g.limits.minute, g.used.minute, g.snapshot.minuteResetSeconds),
        daily: window(g.limits.daily, g.used.daily, g.snapshot.dailyResetSeconds),
      };
    }
    return c.json({ data, credits: status.balances, credit_pack: status.pack }, 200);
  });
}
