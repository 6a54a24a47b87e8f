import { beforeEach, describe, expect, it } from "vitest";
import { MAX_UNBILLED_RUNS, UNBILLED_RUN_WINDOW_MS } from "../../src/agent/ledger.js";
import { ENROLLMENTS_PER_HOUR_PER_IP, MAX_ENROLLMENT_BODY_BYTES } from "../../src/agent/routes/enrollment.js";
import { harness, upstreamCalls } from "./harness.js";
import { BASE, credentialFor, payingAgent, workerFetch } from "./support.js";

beforeEach(() => {
  upstreamCalls.count = 0;
});

describe("unbilled runs per credential", () => {
  it(`answers a 429 with Retry-After (unbilled, upstream not run) after ${MAX_UNBILLED_RUNS} unbilled runs, and the credential still pays for the next answer once the window has passed`, async () => {
    let clock = Date.now();
    const h = harness({ gate: { now: () => clock } });
    const agent = payingAgent({ fetch: h.fetch });
    const authorization = await credentialFor("/email-count?domain=acme.test", agent, h.fetch);
    for (let i = 0; i < MAX_UNBILLED_RUNS; i++) {
      const res = await h.fetch(`${BASE}/email-count?domain=acme.test&fail=422`, { headers: { authorization } });
      expect(res.status).toBe(422);
      expect(res.headers.get("x-payment-charged")).toBe("false");
    }
    for (const path of ["/email-count?domain=acme.test&fail=422", "/email-count?domain=acme.test"]) {
      const beyond = await h.fetch(`${BASE}${path}`, { headers: { authorization } });
      // Not a 402: the spec keeps the credential spendable after unbilled answers.
      expect(beyond.status).toBe(429);
      expect(beyond.headers.get("x-payment-charged")).toBe("false");
      expect(beyond.headers.get("www-authenticate")).toBeNull();
      expect(Number(beyond.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(beyond.headers.get("retry-after"))).toBeLessThanOrEqual(UNBILLED_RUN_WINDOW_MS / 1000);
      const body = await beyond.json<{ errors: { type: string; message: string } }>();
      expect(body.errors.type).toBe("rate_limit");
      expect(body.errors.message).toMatch(/stays spendable/);
    }
    expect(upstreamCalls.count).toBe(MAX_UNBILLED_RUNS);

    clock += UNBILLED_RUN_WINDOW_MS;
    const paid = await h.fetch(`${BASE}/email-count?domain=acme.test`, { headers: { authorization } });
    expect(paid.status).toBe(200);
    expect(paid.headers.get("x-payment-charged")).toBe("true");
    expect(paid.headers.get("payment-receipt")).toBeTruthy();
  });

  it("keeps the credential spendable within the bound (422 and 429 stay unbilled)", async () => {
    const h = harness();
    const agent = payingAgent({ fetch: h.fetch });
    const authorization = await credentialFor("/email-count?domain=acme.test", agent, h.fetch);
    expect(
      (await h.fetch(`${BASE}/email-count?domain=acme.test&fail=422`, { headers: { authorization } })).status,
    ).toBe(422);
    expect(
      (await h.fetch(`${BASE}/email-count?domain=acme.test&fail=429`, { headers: { authorization } })).status,
    ).toBe(429);
    const paid = await h.fetch(`${BASE}/email-count?domain=acme.test`, { headers: { authorization } });
    expect(paid.status).toBe(200);
    expect(paid.headers.get("x-payment-charged")).toBe("true");
  });
});

describe("per-payer rate limit on the shared agents account", () => {
  it("answers an unbilled 429 beyond the payer's per-minute limit, and the credential stays spendable", async () => {
    const strict = harness({ env: { AGENT_PAYER_RPM: "2" } });
    const agent = payingAgent({ fetch: strict.fetch });
    for (let i = 0; i < 2; i++) {
      const authorization = await credentialFor("/email-count?domain=acme.test", agent, strict.fetch);
      expect((await strict.fetch(`${BASE}/email-count?domain=acme.test`, { headers: { authorization } })).status).toBe(
        200,
      );
    }
    const authorization = await credentialFor("/email-count?domain=acme.test", agent, strict.fetch);
    const limited = await strict.fetch(`${BASE}/email-count?domain=acme.test`, { headers: { authorization } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-payment-charged")).toBe("false");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await limited.json<any>()).errors.type).toBe("rate_limit");
    expect(upstreamCalls.count).toBe(2);
    // Another payer is not affected, and the refused credential still pays once the limit allows.
    const other = payingAgent({ fetch: strict.fetch });
    const otherAuth = await credentialFor("/email-count?domain=acme.test", other, strict.fetch);
    expect(
      (await strict.fetch(`${BASE}/email-count?domain=acme.test`, { headers: { authorization: otherAuth } })).status,
    ).toBe(200);
    const relaxed = harness({ env: { AGENT_PAYER_RPM: "100" } });
    expect((await relaxed.fetch(`${BASE}/email-count?domain=acme.test`, { headers: { authorization } })).status).toBe(
      200,
    );
  });
});

describe("POST /agent-enrollments bounds", () => {
  const enroll = (ip: string, body: string) =>
    workerFetch(`${BASE}/agent-enrollments`, {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": ip },
      body,
    });
  const valid = JSON.stringify({ name: "bot", contact: "ops@bots.example", did: "did:pkh:eip155:1:0xabc" });

  it(`allows ${ENROLLMENTS_PER_HOUR_PER_IP} enrollments per hour per address`, async () => {
    for (let i = 0; i < ENROLLMENTS_PER_HOUR_PER_IP; i++)
      expect((await enroll("203.0.113.50", valid)).status).toBe(201);
    const limited = await enroll("203.0.113.50", valid);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await enroll("203.0.113.51", valid)).status).toBe(201);
  });

  it("refuses a body over the size cap with 413", async () => {
    const big = JSON.stringify({
      name: "bot",
      contact: "ops@bots.example",
      public_key: "k".repeat(MAX_ENROLLMENT_BODY_BYTES),
    });
    const res = await enroll("203.0.113.52", big);
    expect(res.status).toBe(413);
    expect((await res.json<any>()).errors.type).toBe("payload_too_large");
  });
});
