import type { LimitSnapshot } from "./account-limiter.js";

/**
 * The rate-limit headers of a table endpoint, all plain integers (clients call int() on them).
 * RateLimit-Policy / RateLimit use the structured-field syntax of the IETF draft for the
 * per-second and daily policies; a policy with no limit is left out.
 */
export function rateLimitHeaders(s: LimitSnapshot): Record<string, string> {
  const headers: Record<string, string> = {
    "x-second-rate-limit": String(s.limits.second),
    "x-minute-rate-limit": String(s.limits.minute),
    "x-daily-rate-limit": String(s.limits.daily),
    "x-minute-request-left": String(s.minuteLeft),
    "x-daily-request-left": String(s.dailyLeft),
    "x-minute-reset-seconds": String(s.minuteResetSeconds),
    "x-daily-reset-seconds": String(s.dailyResetSeconds),
  };
  const policies: string[] = [];
  const states: string[] = [];
  if (s.limits.second) {
    policies.push(`"second";q=${s.limits.second};w=1`);
    states.push(`"second";r=${s.secondLeft};t=1`);
  }
  if (s.limits.daily) {
    policies.push(`"daily";q=${s.limits.daily};w=86400`);
    states.push(`"daily";r=${s.dailyLeft};t=${s.dailyResetSeconds}`);
  }
  if (policies.length) {
    headers["RateLimit-Policy"] = policies.join(", ");
    headers["RateLimit"] = states.join(", ");
  }
  return headers;
}

export function fixedLimitHeaders(r: { limit: number; remaining: number; resetSeconds: number }): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(r.limit),
    "X-RateLimit-Remaining": String(r.remaining),
    "X-RateLimit-Reset": String(r.resetSeconds),
  };
}
