// A server's rate-limit fields, in each way servers write them, read into one allowance.
import { describe, expect, it } from "vitest";
import { readRateLimit } from "../../src/engine/web/rate-limit-fields.js";

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const read = (fields: Record<string, string>) => readRateLimit(new Headers(fields), NOW);

describe("rate-limit fields", () => {
  it("reads the IETF draft's structured fields (-08 on): requests left, seconds to the reset, the policy's quota", () => {
    expect(read({ ratelimit: '"site";r=3;t=7', "ratelimit-policy": '"site";q=6;w=10' })).toEqual({
      remaining: 3,
      resetAt: NOW + 7_000,
      limit: 6,
    });
  });

  it("takes the policy with the fewest requests left when a site states several", () => {
    const fields = {
      ratelimit: '"hour";r=900;t=3000, "burst";r=0;t=4',
      "ratelimit-policy": '"hour";q=1000;w=3600, "burst";q=5;w=10',
    };
    expect(read(fields)).toEqual({ remaining: 0, resetAt: NOW + 4_000, limit: 5 });
  });

  it("reads draft -07's dictionary", () => {
    expect(read({ ratelimit: "limit=6, remaining=2, reset=9", "ratelimit-policy": "6;w=10" })).toEqual({
      remaining: 2,
      resetAt: NOW + 9_000,
      limit: 6,
    });
  });

  it("reads the split fields of drafts up to -06 (reset in seconds from now)", () => {
    expect(read({ "ratelimit-limit": "5", "ratelimit-remaining": "0", "ratelimit-reset": "4" })).toEqual({
      remaining: 0,
      resetAt: NOW + 4_000,
      limit: 5,
    });
  });

  it("reads X-RateLimit-Reset as epoch seconds, epoch milliseconds, seconds from now or a date", () => {
    const at = (reset: string) =>
      read({ "x-ratelimit-limit": "60", "x-ratelimit-remaining": "1", "x-ratelimit-reset": reset })?.resetAt;
    expect(at(String(NOW / 1000 + 30))).toBe(NOW + 30_000);
    expect(at(String(NOW + 30_000))).toBe(NOW + 30_000);
    expect(at("30")).toBe(NOW + 30_000);
    expect(at(new Date(NOW + 30_000).toUTCString())).toBe(NOW + 30_000);
    expect(read({ "x-rate-limit-remaining": "4" })).toEqual({ remaining: 4, resetAt: null, limit: null });
  });

  it("is null for an answer without rate-limit fields, or with fields it cannot read", () => {
    expect(read({ "retry-after": "5" })).toBeNull();
    expect(read({ ratelimit: "nonsense" })).toBeNull();
    expect(read({ "x-ratelimit-remaining": "many" })).toBeNull();
  });
});
