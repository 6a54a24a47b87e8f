import type { LimitSnapshot } from "./limiter-messages.js";

/**
 * The X-RateLimit-* header set (docs/wire-contract.md §3.1: limit, remaining, seconds to reset) for one window. On a
 * table endpoint, which has up to three windows, it describes the window closest to refusing (the
 * fewest requests left; the shorter window on a tie). 0 everywhere means no limit, as in x-*.
 */
function xRateLimit(windows: { limit: number; remaining: number; resetSeconds: number }[]): Record<string, string> {
  const tightest = windows.filter((w) => w.limit > 0).sort((a, b) => a.remaining - b.remaining)[0] ?? {
    limit: 0,
    remaining: 0,
    resetSeconds: 0,
  };
  return {
    "X-RateLimit-Limit": String(tightest.limit),
    "X-RateLimit-Remaining": String(tightest.remaining),
    "X-RateLimit-Reset": String(tightest.resetSeconds),
  };
}

/**
 * The rate-limit headers of a table endpoint, all plain integers (clients call int() on them):
 * both documented header sets (docs/wire-contract.md §3.1), the x-* per-window headers and X-RateLimit-*.
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
    ...xRateLimit([
      { limit: s.limits.second, remaining: s.secondLeft, resetSeconds: 1 },
      { limit: s.limits.minute, remaining: s.minuteLeft, resetSeconds: s.minuteResetSeconds },
      { limit: s.limits.daily, remaining: s.dailyLeft, resetSeconds: s.dailyResetSeconds },
    ]),
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
    headers.RateLimit = states.join(", ");
  }
  return headers;
}

/**
 * The headers of a fixed-limit endpoint (keys, reveal, flags): X-RateLimit-* as the spec names them,
 * and the x-* set too (docs/wire-contract.md §3.1: send both). A fixed window is one of the x-* windows when it
 * is a second, a minute or a day long; the others (per hour) are 0 there ("no limit in that window")
 * and described by X-RateLimit-* and RateLimit-Policy.
 */
export function fixedLimitHeaders(
  r: { limit: number; remaining: number; resetSeconds: number },
  windowSeconds: number,
): Record<string, string> {
  const inWindow = (seconds: number, value: number) => String(windowSeconds === seconds ? value : 0);
  const name = { 1: "second", 60: "minute", 86400: "daily" }[windowSeconds] ?? `${windowSeconds}s`;
  return {
    ...xRateLimit([r]),
    "x-second-rate-limit": inWindow(1, r.limit),
    "x-minute-rate-limit": inWindow(60, r.limit),
    "x-daily-rate-limit": inWindow(86400, r.limit),
    "x-minute-request-left": inWindow(60, r.remaining),
    "x-daily-request-left": inWindow(86400, r.remaining),
    "x-minute-reset-seconds": inWindow(60, r.resetSeconds),
    "x-daily-reset-seconds": inWindow(86400, r.resetSeconds),
    "RateLimit-Policy": `"${name}";q=${r.limit};w=${windowSeconds}`,
    RateLimit: `"${name}";r=${r.remaining};t=${r.resetSeconds}`,
  };
}
