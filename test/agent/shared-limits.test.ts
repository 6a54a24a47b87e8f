import { describe, expect, it } from "vitest";
import { CAPABILITIES } from "../../src/capabilities/index.js";
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

    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 50));
    const later = await h.fetch(`${BASE}${path}`, { headers: { authorization: second } });
    expect(later.status).toBe(200);
    expect(later.headers.get("x-payment-charged")).toBe("true");
  });
});
