// A server's rate-limit header fields, read into one allowance: how many more requests the current
// window lets through and when it resets. Servers write it in four ways:
// - the IETF httpapi draft from -08 on (draft-ietf-httpapi-ratelimit-headers-08 … -10): structured
//   fields, a list of named policies: `RateLimit-Policy: "burst";q=100;w=60` and
//   `RateLimit: "burst";r=50;t=30` (r: requests left, t: seconds to the reset);
// - its draft -07: `RateLimit: limit=100, remaining=50, reset=30` with `RateLimit-Policy: 100;w=60`;
// - drafts up to -06 (and draft-polli-ratelimit-headers): `RateLimit-Limit`, `RateLimit-Remaining`,
//   `RateLimit-Reset` (delta seconds);
// - the older trio `X-RateLimit-Limit/-Remaining/-Reset` (also `X-Rate-Limit-…`), whose reset is, by
//   server, UNIX epoch seconds (express-rate-limit's legacy headers, GitHub, Heroku), epoch
//   milliseconds, delta seconds or an HTTP date.
// (express-rate-limit's source/headers.ts writes the first three and the trio.) Servers that send
// none still send Retry-After on their 429 (fetch-page.ts reads it).

/** What a site's rate-limit fields say about the window an answer was counted in. */
export interface RateAllowance {
  /** Requests the window still lets through (this answer's request counted). */
  remaining: number;
  /** When the window resets, on the caller's clock; null when the fields do not say. */
  resetAt: number | null;
  /** Requests one window allows, when said. */
  limit: number | null;
}

const count = (v: string | undefined): number | null => {
  if (v === undefined) return null;
  const n = Number(v.trim());
  return Number.isFinite(n) && n >= 0 ? n : null;
};

/** Parameters of one structured-field item (`"name";r=5;t=3` or `100;w=60`): key → value. */
function params(item: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of item.split(";").slice(1)) {
    const eq = part.indexOf("=");
    if (eq > 0) out.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  return out;
}

const itemName = (item: string) => /^\s*"([^"]*)"/.exec(item)?.[1] ?? null;

/** `RateLimit` as drafts -08 on write it: the policy with the fewest requests left binds. */
function structured(value: string, policy: string | null, now: number): RateAllowance | null {
  let best: RateAllowance | null = null;
  for (const item of value.split(",")) {
    const p = params(item);
    const remaining = count(p.get("r"));
    if (remaining === null) continue;
    const t = count(p.get("t"));
    const name = itemName(item);
    const quota = (policy ?? "")
      .split(",")
      .filter((pol) => itemName(pol) === name)
      .map((pol) => count(params(pol).get("q")))[0];
    const seen = { remaining, resetAt: t === null ? null : now + t * 1000, limit: quota ?? null };
    if (!best || seen.remaining < best.remaining) best = seen;
  }
  return best;
}

/** `RateLimit` as draft -07 writes it: `limit=100, remaining=50, reset=30`. */
function dictionary(value: string, now: number): RateAllowance | null {
  const fields = new Map(
    value.split(",").map((kv) => {
      const eq = kv.indexOf("=");
      return [kv.slice(0, eq).trim().toLowerCase(), kv.slice(eq + 1)] as const;
    }),
  );
  const remaining = count(fields.get("remaining"));
  if (remaining === null) return null;
  const reset = count(fields.get("reset"));
  return { remaining, resetAt: reset === null ? null : now + reset * 1000, limit: count(fields.get("limit")) };
}

/**
 * A reset as the older fields write it: epoch seconds or milliseconds (too large to be a wait),
 * delta seconds, or a date.
 */
function resetOf(value: string | null, now: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  const n = count(v);
  if (n === null) {
    const at = Date.parse(v);
    return Number.isNaN(at) ? null : at;
  }
  if (n >= 1e12) return n;
  if (n >= 1e9) return n * 1000;
  return now + n * 1000;
}

/** The leading number of a limit field (draft -03 wrote `100, 100;w=60`). */
const leading = (v: string | null) => (v === null ? null : count(v.split(/[,;]/)[0]));

/** The allowance an answer's rate-limit fields state, or null when it carries none. */
export function readRateLimit(headers: Headers, now: number): RateAllowance | null {
  const current = headers.get("ratelimit");
  if (current !== null) {
    const seen = /\br\s*=/.test(current)
      ? structured(current, headers.get("ratelimit-policy"), now)
      : dictionary(current, now);
    if (seen) return seen;
  }
  for (const prefix of ["ratelimit-", "x-ratelimit-", "x-rate-limit-"]) {
    const remaining = leading(headers.get(`${prefix}remaining`));
    if (remaining === null) continue;
    return {
      remaining,
      resetAt: resetOf(headers.get(`${prefix}reset`), now),
      limit: leading(headers.get(`${prefix}limit`)),
    };
  }
  return null;
}
