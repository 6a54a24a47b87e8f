import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { executeCapability } from "../../src/capabilities/core/execute.js";
import { defineCapability } from "../../src/capabilities/core/registry.js";
import { limiterFor } from "../../src/limits/admission.js";
import { call, createAccount, joinWorkspace, json } from "../support/accounts.js";
import { billedOf } from "../support/limiter.js";
import { settle } from "../support/settle.js";

const INT = /^\d+$/;

describe("rate-limit headers on /v1", () => {
  it("sends every table header on /v1/me, as plain integers, and answers 429 rps with pre-request values", async () => {
    const a = await createAccount({ plan: "free" }); // me: 2/30/500
    const first = await call("/v1/me", { headers: a.headers });
    expect(first.status).toBe(200);
    for (const h of [
      "x-second-rate-limit",
      "x-minute-rate-limit",
      "x-daily-rate-limit",
      "x-minute-request-left",
      "x-daily-request-left",
      "x-minute-reset-seconds",
      "x-daily-reset-seconds",
    ]) {
      expect(first.headers.get(h), h).toMatch(INT);
    }
    expect(first.headers.get("x-second-rate-limit")).toBe("2");
    expect(first.headers.get("x-daily-request-left")).toBe("499");
    expect(first.headers.get("RateLimit-Policy")).toBe('"second";q=2;w=1, "daily";q=500;w=86400');
    expect(first.headers.get("RateLimit")).toMatch(/^"second";r=1;t=1, "daily";r=499;t=\d+$/);

    // A second accepted request in the same second, straight through the limiter.
    await limiterFor(env, a.accountId).admit({ plan: "free", group: "me", cost: {} });
    const third = await call("/v1/me", { headers: a.headers });
    expect(third.status).toBe(429);
    const body = await json(third);
    expect(body.errors).toMatchObject({ type: "rate_limit", code: 429 });
    expect(body.errors.message).toContain("rps");
    expect(third.headers.get("Retry-After")).toBe("1");
    // Values from before the refused request: two accepted so far.
    expect(third.headers.get("x-daily-request-left")).toBe("498");
    expect(third.headers.get("x-minute-request-left")).toBe("28");
  });

  it("sends the X-RateLimit-* family beside the x-* family on a table endpoint, 429 included, for the window closest to refusing", async () => {
    const a = await createAccount({ plan: "free" }); // me: 2/30/500
    const first = await call("/v1/me", { headers: a.headers });
    // One request made: the per-second window (1 of 2 left) is the tightest.
    expect([
      first.headers.get("X-RateLimit-Limit"),
      first.headers.get("X-RateLimit-Remaining"),
      first.headers.get("X-RateLimit-Reset"),
    ]).toEqual(["2", "1", "1"]);
    await limiterFor(env, a.accountId).admit({ plan: "free", group: "me", cost: {} });
    const refused = await call("/v1/me", { headers: a.headers });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-second-rate-limit")).toBe("2");
    expect([refused.headers.get("X-RateLimit-Limit"), refused.headers.get("X-RateLimit-Remaining")]).toEqual([
      "2",
      "0",
    ]);
  });

  it("puts both families on a capability's 400 answers (invalid parameters, refused webhook_url) without counting them", async () => {
    const a = await createAccount({ plan: "free" }); // verifier: 1/2/10
    const answers = [
      await call("/v1/email-verifier", { headers: a.headers }),
      await call("/v1/email-verifier?email=a@b.co&limit=x&webhook_url=http%3A%2F%2Freceiver.test%2Fx", {
        headers: a.headers,
      }),
      await call("/v1/phone-validator?phone=", { headers: a.headers }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(400);
      for (const h of [
        "x-second-rate-limit",
        "x-minute-rate-limit",
        "x-daily-rate-limit",
        "x-minute-request-left",
        "x-daily-request-left",
        "x-minute-reset-seconds",
        "x-daily-reset-seconds",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
      ]) {
        expect(res.headers.get(h), h).toMatch(INT);
      }
      expect(res.headers.get("RateLimit-Policy")).toMatch(/"second";q=1;w=1/);
    }
    // Not counted: the daily counter of each group is untouched.
    expect(answers[0]!.headers.get("x-daily-request-left")).toBe("10");
    expect(answers[1]!.headers.get("x-daily-request-left")).toBe("10");
    expect(answers[2]!.headers.get("x-daily-rate-limit")).toBe("5");
    expect(answers[2]!.headers.get("x-daily-request-left")).toBe("5");
  });

  it("answers 0 (no limit) in both families on a plan without limits, 400 included", async () => {
    const a = await createAccount({ plan: "scale" });
    const res = await call("/v1/email-verifier", { headers: a.headers });
    expect(res.status).toBe(400);
    expect([
      res.headers.get("x-second-rate-limit"),
      res.headers.get("X-RateLimit-Limit"),
      res.headers.get("X-RateLimit-Remaining"),
    ]).toEqual(["0", "0", "0"]);
  });

  it("shares the owner's counters with workspace members", async () => {
    const owner = await createAccount({ plan: "free" });
    const member = await createAccount({ plan: "pro" });
    await joinWorkspace(owner.accountId, member.accountId);
    await call("/v1/me", { headers: owner.headers });
    const res = await call("/v1/me", { headers: member.headers });
    expect(res.headers.get("x-second-rate-limit")).toBe("2");
    expect(Number(res.headers.get("x-daily-request-left"))).toBeLessThanOrEqual(498);
  });

  it("puts X-RateLimit-* on fixed-limit key routes and only Retry-After on their 429", async () => {
    const a = await createAccount();
    const res = await call("/v1/keys", { headers: a.headers });
    expect(res.headers.get("X-RateLimit-Limit")).toBe("100");
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("99");
    expect(res.headers.get("X-RateLimit-Reset")).toMatch(INT);
    // The x-* family too (docs/wire-contract.md §3.1): keys are limited per minute.
    expect([
      res.headers.get("x-second-rate-limit"),
      res.headers.get("x-minute-rate-limit"),
      res.headers.get("x-daily-rate-limit"),
    ]).toEqual(["0", "100", "0"]);
    expect(res.headers.get("x-minute-request-left")).toBe("99");
    expect(res.headers.get("x-minute-reset-seconds")).toBe(res.headers.get("X-RateLimit-Reset"));
    expect(res.headers.get("RateLimit-Policy")).toBe('"minute";q=100;w=60');
    expect(res.headers.get("RateLimit")).toMatch(/^"minute";r=99;t=\d+$/);
    for (let i = 0; i < 99; i++) await limiterFor(env, a.accountId).fixedWindow("keys:read", 100, 60_000, Date.now());
    const refused = await call("/v1/keys", { headers: a.headers });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toMatch(INT);
    expect(refused.headers.get("X-RateLimit-Limit")).toBeNull();
    expect((await json(refused)).errors.type).toBe("rate_limit");
  });

  it("never rate-limits /v1/usage, /v1/logs and /v1/rate-limits", async () => {
    const a = await createAccount({ plan: "free" });
    for (let i = 0; i < 5; i++) {
      for (const path of ["/v1/usage", "/v1/logs", "/v1/rate-limits"]) {
        const res = await call(path, { headers: a.headers });
        expect(res.status).toBe(200);
        expect(res.headers.get("x-second-rate-limit")).toBeNull();
      }
    }
  });

  it("lists limits and usage per key on /v1/rate-limits, with the spec's key names", async () => {
    const a = await createAccount({ plan: "growth" });
    await call("/v1/me", { headers: a.headers });
    const body = await json(await call("/v1/rate-limits", { headers: a.headers }));
    for (const key of [
      "domain-search",
      "email-verifier",
      "enrich",
      "profile-finder",
      "phone",
      "enrich-email",
      "enrich-company",
      "enrich-combined",
      "me",
      "searches",
      "reveal",
    ]) {
      expect(body.data, key).toHaveProperty(key);
    }
    expect(body.data["domain-search"].second.limit).toBe(5);
    expect(body.data.me.daily).toMatchObject({ limit: 5000, used: 1 });
    expect(body.data.reveal.enforced).toBe(false);
    expect(body.credits.search.allowance).toBe(2500);
  });
});

// A test double of a capability: the executor and the gate are what is under test here.
const lookups: { found: boolean; fail?: boolean }[] = [];
const probe = defineCapability({
  name: "probe",
  label: "Probe",
  summary: "test double",
  tag: "Test",
  paths: ["/probe"],
  params: z.object({}),
  rateGroup: "search",
  cost: { balance: "search", amount: 1 },
  estimatedCostHeader: "X-Estimated-Cost",
  usageCategory: "search",
  handler: async () => {
    const next = lookups.shift() ?? { found: true };
    if (next.fail) throw new Error("upstream exploded");
    return { body: { data: next.found ? { ok: true } : null }, found: next.found };
  },
});

const run = (accountId: number, plan: string, cap = probe, now = Date.now()) =>
  executeCapability(cap, {}, { env, waitUntil: () => {}, accountId, plan, surface: "v1", now: () => now });

describe("capability calls through the limiter", () => {
  it("charges found answers, refunds empty ones and failures", async () => {
    const a = await createAccount({ plan: "pro" });
    lookups.push({ found: true }, { found: false }, { found: true, fail: true });
    const t = Date.now();
    const ok = await run(a.accountId, "pro", probe, t);
    expect(ok.response.status).toBe(200);
    // The answer's report (its log row) takes the decision: that sends the charge.
    expect(await billedOf(ok)).toBe(true);
    expect(ok.response.headers.get("x-second-rate-limit")).toBe("8");
    await run(a.accountId, "pro", probe, t + 10);
    const failed = await run(a.accountId, "pro", probe, t + 20);
    expect(failed.response.status).toBe(500);
    expect(failed.response.headers.get("x-minute-request-left")).toBe("147"); // every accepted request counts
    // Settlements reach the limiter off the response path (gate.ts: within SETTLE_WAIT_MS plus a round trip).
    await settle(async () => (await limiterFor(env, a.accountId).balances("pro")).search.used === 1);
    expect((await limiterFor(env, a.accountId).balances("pro")).search.used).toBe(1);
  });

  it("answers 402 quota_exceeded with X-Estimated-Cost when the balance is too low, and 429 without Retry-After for count-style endpoints", async () => {
    const a = await createAccount({ plan: "free" });
    const spend = await limiterFor(env, a.accountId).admit({ plan: "free", group: null, cost: { search: 25 } });
    expect(spend.admitted).toBe(true);
    const res = (await run(a.accountId, "free")).response;
    expect(res.status).toBe(402);
    expect(res.headers.get("X-Estimated-Cost")).toBe("1");
    const body = await json(res);
    expect(body.errors.type).toBe("quota_exceeded");
    expect(body.errors.message).toMatch(/do not retry/i);

    const countLike = { ...probe, exhaustedAs: "rate_limit" as const, estimatedCostHeader: undefined };
    const res429 = (await run(a.accountId, "free", countLike, Date.now() + 5_000)).response;
    expect(res429.status).toBe(429);
    expect(res429.headers.get("Retry-After")).toBeNull();
  });

  it("spends no credits on the agent surface (the payment is the charge) but still counts the rate limit", async () => {
    const a = await createAccount({ plan: "free" });
    await limiterFor(env, a.accountId).admit({ plan: "free", group: null, cost: { search: 25 } });
    const res = (
      await executeCapability(
        probe,
        {},
        { env, waitUntil: () => {}, accountId: a.accountId, plan: "free", surface: "agent" },
      )
    ).response;
    expect(res.status).toBe(200);
    expect(res.headers.get("x-daily-request-left")).toBe("4");
  });
});
