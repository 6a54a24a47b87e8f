import { Challenge, Receipt } from "mppx";
import { HttpRequestError } from "viem";
import { beforeEach, describe, expect, it } from "vitest";
import { PaymentGateUnavailable } from "../../src/agent/provider.js";
import { settle } from "../support/settle.js";
import { failingLedger, faultyProvider, harness, heldUpstream, upstreamCalls } from "./harness.js";
import { BASE, challengeIdOf, credentialFor, payingAgent, settlementOf } from "./support.js";

const OK = "/email-count?domain=acme.test";

beforeEach(() => {
  upstreamCalls.count = 0;
});

async function pay(h = harness(), path = OK) {
  const agent = payingAgent({ fetch: h.fetch });
  return { agent, authorization: await credentialFor(path, agent, h.fetch) };
}

describe("settle only for a usable answer", () => {
  it("after a 422 the same credential pays for a later request, and is charged once", async () => {
    const h = harness();
    const { authorization } = await pay(h);
    const rejected = await h.fetch(`${BASE}/email-count?domain=acme.test&fail=422`, { headers: { authorization } });
    expect(rejected.status).toBe(422);
    expect(rejected.headers.get("x-payment-charged")).toBe("false");
    expect(rejected.headers.get("payment-receipt")).toBeNull();
    expect(await settlementOf(challengeIdOf(authorization))).toBeNull();

    const paid = await h.fetch(`${BASE}${OK}`, { headers: { authorization } });
    expect(paid.status).toBe(200);
    expect(paid.headers.get("x-payment-charged")).toBe("true");
    expect(Receipt.fromResponse(paid).status).toBe("success");
    expect(paid.headers.get("x-internal-debug")).toBeNull();

    const again = await h.fetch(`${BASE}${OK}`, { headers: { authorization } });
    expect(again.status).toBe(402);
    expect(Challenge.fromResponseList(again)).toHaveLength(2);
    expect((await again.json<{ type: string }>()).type).toMatch(/invalid-challenge/);
    expect(upstreamCalls.count).toBe(2);
    const row = await settlementOf(challengeIdOf(authorization));
    expect(row).toMatchObject({ endpoint: "/email-count", amount: "2000" });
  });

  it("missing parameters are an unbilled 422 that names the parameter", async () => {
    const h = harness();
    const { authorization } = await pay(h);
    const res = await h.fetch(`${BASE}/email-count`, { headers: { authorization } });
    expect(res.status).toBe(422);
    expect(res.headers.get("x-payment-charged")).toBe("false");
    const body = await res.json<{ errors: { type: string; message: string; code: number } }>();
    expect(body.errors).toMatchObject({ type: "params_invalid", code: 422 });
    expect(body.errors.message).toMatch(/domain/);
    expect(upstreamCalls.count).toBe(0);
    expect((await h.fetch(`${BASE}${OK}`, { headers: { authorization } })).status).toBe(200);
  });

  it("an upstream 429 is unbilled, keeps Retry-After, and the credential stays spendable", async () => {
    const h = harness();
    const { authorization } = await pay(h);
    const limited = await h.fetch(`${BASE}/email-count?domain=acme.test&fail=429`, { headers: { authorization } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(limited.headers.get("x-payment-charged")).toBe("false");
    expect((await h.fetch(`${BASE}${OK}`, { headers: { authorization } })).status).toBe(200);
  });

  it.each(["451", "503"])("other upstream failures (%s) pass through unbilled", async (code) => {
    const h = harness();
    const { authorization } = await pay(h);
    const res = await h.fetch(`${BASE}/email-count?domain=acme.test&fail=${code}`, { headers: { authorization } });
    expect(res.status).toBe(Number(code));
    expect(res.headers.get("x-payment-charged")).toBe("false");
    expect((await h.fetch(`${BASE}${OK}`, { headers: { authorization } })).status).toBe(200);
  });
});

describe("never double-spend", () => {
  it("20 concurrent replays of one credential settle exactly once", async () => {
    const h = harness();
    const { authorization } = await pay(h);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => h.fetch(`${BASE}${OK}`, { headers: { authorization } })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    // The others waited for the winner and were then told the credential is spent.
    expect(statuses.filter((s) => s === 402)).toHaveLength(19);
    expect(results.filter((r) => r.headers.get("x-payment-charged") === "true")).toHaveLength(1);
    expect(upstreamCalls.count).toBe(1);
    expect(await settlementOf(challengeIdOf(authorization))).not.toBeNull();
  });

  it("a replay that cannot wait for an in-flight use gets 503 + Retry-After, never a request to pay", async () => {
    const h = harness({ gate: { busyWaitMs: 30 } });
    const { authorization } = await pay(h);
    heldUpstream.hold();
    const slow = h.fetch(`${BASE}/email-count?domain=acme.test&hold=1`, { headers: { authorization } });
    // The first use is in flight once upstream runs; it stays there until released below.
    await settle(() => upstreamCalls.count === 1);
    const replay = await h.fetch(`${BASE}${OK}`, { headers: { authorization } });
    heldUpstream.release();
    expect(replay.status).toBe(503);
    expect(replay.headers.get("retry-after")).toBe("1");
    expect(replay.headers.get("www-authenticate")).toBeNull();
    expect((await slow).status).toBe(200);
    expect(upstreamCalls.count).toBe(1);
  });

  it("a credential bought for one endpoint does not pay for another at the same price", async () => {
    const h = harness();
    const { authorization } = await pay(h);
    const res = await h.fetch(`${BASE}/email-format?domain=acme.test`, { headers: { authorization } });
    expect(res.status).toBe(402);
    expect(upstreamCalls.count).toBe(0);
  });

  it("garbage and tampered credentials get 402 with fresh challenges, never upstream work", async () => {
    const h = harness();
    const garbage = await h.fetch(`${BASE}${OK}`, { headers: { authorization: "Payment not-a-credential" } });
    expect(garbage.status).toBe(402);
    expect(Challenge.fromResponseList(garbage)).toHaveLength(2);
    expect((await garbage.json<{ type: string }>()).type).toMatch(/malformed-credential/);

    const { authorization } = await pay(h);
    const decoded = JSON.parse(atob(authorization.slice("Payment ".length).replace(/-/g, "+").replace(/_/g, "/")));
    decoded.payload.value = "1"; // pay less than asked
    const tampered = `Payment ${btoa(JSON.stringify(decoded)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;
    const res = await h.fetch(`${BASE}${OK}`, { headers: { authorization: tampered } });
    expect(res.status).toBe(402);
    expect(upstreamCalls.count).toBe(0);
  });

  it("a signature by someone other than the named payer is refused", async () => {
    const h = harness();
    const { authorization } = await pay(h);
    const decoded = JSON.parse(atob(authorization.slice("Payment ".length).replace(/-/g, "+").replace(/_/g, "/")));
    decoded.payload.from = payingAgent().account.address;
    delete decoded.source;
    const forged = `Payment ${btoa(JSON.stringify(decoded)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;
    const res = await h.fetch(`${BASE}${OK}`, { headers: { authorization: forged } });
    expect(res.status).toBe(402);
    expect((await res.json<{ detail: string }>()).detail).toMatch(/signature/i);
  });
});

describe("provider faults are not payment requests", () => {
  it("an unreachable payment network during validation is a 502, not a 402", async () => {
    const healthy = harness();
    const { authorization } = await pay(healthy);
    const h = harness({
      gate: {
        provider: faultyProvider({
          validate: () =>
            new HttpRequestError({ url: "https://rpc.tempo.test", status: 503, details: "upstream connect error" }),
        }),
      },
    });
    const res = await h.fetch(`${BASE}${OK}`, { headers: { authorization } });
    expect(res.status).toBe(502);
    expect(res.headers.get("www-authenticate")).toBeNull();
    expect((await res.json<{ errors: { type: string } }>()).errors.type).toBe("payment_provider_unreachable");
    expect(upstreamCalls.count).toBe(0);
  });

  it("a settlement that cannot reach the network is a 502 and the credential stays spendable", async () => {
    const healthy = harness();
    const { authorization } = await pay(healthy);
    const broken = harness({
      gate: { provider: faultyProvider({ settle: () => new TypeError("fetch failed: network connection lost") }) },
    });
    const res = await broken.fetch(`${BASE}${OK}`, { headers: { authorization } });
    expect(res.status).toBe(502);
    expect(res.headers.get("x-payment-charged")).toBe("false");
    expect(res.headers.get("payment-receipt")).toBeNull();
    expect(await settlementOf(challengeIdOf(authorization))).toBeNull();
    const retried = await healthy.fetch(`${BASE}${OK}`, { headers: { authorization } });
    expect(retried.status).toBe(200);
  });

  it("a provider that is down for maintenance is a 503 with an integer Retry-After", async () => {
    const { authorization } = await pay();
    const h = harness({
      gate: { provider: faultyProvider({ validate: () => new PaymentGateUnavailable("maintenance", 12) }) },
    });
    const res = await h.fetch(`${BASE}${OK}`, { headers: { authorization } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("12");
  });

  it("an unavailable ledger is a 503 and nothing runs upstream", async () => {
    const { authorization } = await pay();
    const h = harness({ gate: { ledger: failingLedger() } });
    const res = await h.fetch(`${BASE}${OK}`, { headers: { authorization } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(upstreamCalls.count).toBe(0);
  });

  it("a gate without its secret answers 503 with Retry-After, even unpaid requests", async () => {
    const h = harness({ env: { MPP_SECRET_KEY: undefined } });
    const res = await h.fetch(`${BASE}${OK}`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await res.json<{ errors: { type: string } }>()).errors.type).toBe("payment_gate_unavailable");
  });

  it("the development method is refused in production (503, never a dev challenge)", async () => {
    const h = harness({ env: { ENVIRONMENT: "production", MPP_METHOD: "evm-dev" } });
    const res = await h.fetch(`${BASE}${OK}`);
    expect(res.status).toBe(503);
    expect(res.headers.get("www-authenticate")).toBeNull();
  });

  it("production without Tempo configuration is a 503, not a fallback to the dev method", async () => {
    const h = harness({ env: { ENVIRONMENT: "production" } });
    const res = await h.fetch(`${BASE}${OK}`);
    expect(res.status).toBe(503);
  });

  it("production with Tempo configured challenges in tempo for USDC and USDT", async () => {
    const h = harness({
      env: {
        ENVIRONMENT: "production",
        TEMPO_RPC_URL: "https://rpc.tempo.test",
        TEMPO_RECIPIENT: "0x1111111111111111111111111111111111111111",
        TEMPO_USDT_ADDRESS: "0x20c0000000000000000000000000000000000077",
      },
    });
    const res = await h.fetch(`${BASE}${OK}`);
    expect(res.status).toBe(402);
    const challenges = Challenge.fromResponseList(res);
    expect(challenges.map((c) => c.method)).toEqual(["tempo", "tempo"]);
    expect(challenges.map((c) => (c.request as { currency: string }).currency.toLowerCase())).toEqual([
      "0x20c000000000000000000000b9537d11c60e8b50",
      "0x20c0000000000000000000000000000000000077",
    ]);
  });
});
