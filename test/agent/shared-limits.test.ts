import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { agentsAccountId } from "../../src/agent/agents-account.js";
import { CAPABILITIES } from "../../src/capabilities/index.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { limiterFor } from "../../src/limits/admission.js";
import { limiterClock } from "../support/limiter.js";
import { harness } from "./harness.js";
import { BASE, challengeIdOf, credentialFor, payingAgent, settlementOf } from "./support.js";

// The agents account's plan comes from AGENTS_PLAN; on "free" the verifier allows 1 request/second,
// shared by every agent, so a second agent in the same second meets a real upstream 429.
describe("agent-surface rate limits are the shared agents account's", () => {
  it("a 429 from the shared account is unbilled, carries Retry-After, and the credential stays spendable", async () => {
    const h = harness({ env: { AGENTS_PLAN: "free" }, capabilities: CAPABILITIES });
    const path = "/email-verifier?email=jane.doe%40acme-verify.test";
    const first = await credentialFor(path, payingAgent({ fetch: h.fetch }), h.fetch);
    const second = await credentialFor(path, payingAgent({ fetch: h.fetch }), h.fetch);
    // Both calls in one second of the agents account's limiter, and the next one a known time later,
    // on the limiter's own clock: a busy machine cannot move a call into another second.
    const limiter = limiterFor(env as Env, await agentsAccountId(env as Env));
    const clock = await limiterClock(limiter as unknown as DurableObjectStub<AccountLimiter>, Date.now());

    const ok = await h.fetch(`${BASE}${path}`, { headers: { authorization: first } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-second-rate-limit")).toBe("1");
    expect(ok.headers.get("ratelimit-policy")).toMatch(/"second";q=1;w=1/);
    expect(ok.headers.get("ratelimit")).toMatch(/"second";r=0/);
    // The X-RateLimit-* family too (docs/wire-contract.md §3.1: both families), for the window closest to refusing.
    expect([
      ok.headers.get("x-ratelimit-limit"),
      ok.headers.get("x-ratelimit-remaining"),
      ok.headers.get("x-ratelimit-reset"),
    ]).toEqual(["1", "0", "1"]);

    const limited = await h.fetch(`${BASE}${path}`, { headers: { authorization: second } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-payment-charged")).toBe("false");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    expect(limited.headers.get("x-second-rate-limit")).toBe("1");
    expect(limited.headers.get("x-ratelimit-limit")).toBe("1");
    expect(await settlementOf(challengeIdOf(second))).toBeNull();

    clock.at(clock.now + retryAfter * 1000 + 50);
    const later = await h.fetch(`${BASE}${path}`, { headers: { authorization: second } });
    expect(later.status).toBe(200);
    expect(later.headers.get("x-payment-charged")).toBe("true");
    // The limiter object outlives this file (runtimes are shared): back to the real clock.
    clock.at(null);
  });
});
