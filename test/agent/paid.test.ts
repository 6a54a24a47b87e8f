import { Challenge, Receipt } from "mppx";
import { describe, expect, it } from "vitest";
import { DEV_TOKENS } from "../../src/agent/dev-chain.js";
import { BASE, challengeIdOf, credentialFor, payingAgent, settlementOf, workerFetch } from "./support.js";

// End to end through the Worker's own fetch, paying for real capabilities with the mppx client.
const VERIFY = "/email-verifier?email=jane.doe%40acme-verify.test";
const RATE_LIMIT_HEADERS = [
  "x-second-rate-limit",
  "x-minute-rate-limit",
  "x-daily-rate-limit",
  "x-minute-request-left",
  "x-daily-request-left",
  "x-minute-reset-seconds",
  "x-daily-reset-seconds",
];

describe("paid agent surface (dev method, real signatures)", () => {
  it("answers an unpaid request with one Payment challenge per currency and a problem+json body", async () => {
    const res = await workerFetch(`${BASE}${VERIFY}`);
    expect(res.status).toBe(402);
    expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
    const challenges = Challenge.fromResponseList(res);
    expect(challenges).toHaveLength(2);
    expect(challenges.map((c) => c.method)).toEqual(["evm", "evm"]);
    expect(challenges.map((c) => c.realm)).toEqual(["api.test", "api.test"]);
    expect(challenges.map((c) => (c.request as { currency: string }).currency.toLowerCase()).sort()).toEqual(
      [DEV_TOKENS.USDC, DEV_TOKENS.USDT].sort(),
    );
    expect(challenges.every((c) => (c.request as { amount: string }).amount === "10000")).toBe(true);
    const body = await res.json<{ type: string; status: number }>();
    expect(body).toMatchObject({ type: "https://paymentauth.org/problems/payment-required", status: 402 });
  });

  it("pays for /email-verifier with the mppx client: answer, receipt, X-Payment-Charged and the upstream rate-limit headers", async () => {
    const { client } = payingAgent();
    const res = await client.fetch(`${BASE}${VERIFY}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-payment-charged")).toBe("true");
    const receipt = Receipt.fromResponse(res);
    expect(receipt).toMatchObject({ status: "success", method: "evm" });
    // The shared agents account is on "scale" (no per-endpoint limits: 0 means none), as /v1 shows it.
    for (const h of RATE_LIMIT_HEADERS) expect(res.headers.get(h), h).toMatch(/^\d+$/);
    expect(res.headers.get("x-daily-rate-limit")).toBe("0");
    // Same wire shape as /v1 (docs/wire-contract.md §6.1): data.email is the verdict object, sources beside it.
    const body = await res.json<{ data: { email: { email: string; smtp_check_run: boolean }; sources: unknown[] } }>();
    expect(body.data.email.email).toBe("jane.doe@acme-verify.test");
    expect(body.data.email.smtp_check_run).toBe(false);
    expect(Array.isArray(body.data.sources)).toBe(true);
  });

  it("pays for /domain-status in USDT and records endpoint, amount, currency, payer, reference and time", async () => {
    const agent = payingAgent({ prefer: "USDT" });
    const path = "/domain-status?domain=gmail.com";
    const authorization = await credentialFor(path, agent);
    const before = Date.now();
    const res = await workerFetch(`${BASE}${path}`, { headers: { authorization } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ domain: "gmail.com", webmail: true, disposable: false });
    const row = await settlementOf(challengeIdOf(authorization));
    expect(row).toMatchObject({
      endpoint: "/domain-status",
      amount: "1000",
      currencySymbol: "USDT",
      currency: DEV_TOKENS.USDT,
      method: "evm",
      payer: agent.account.address,
    });
    expect(row!.reference).toBe(Receipt.fromResponse(res).reference);
    expect(row!.settledAt).toBeGreaterThanOrEqual(before);
  });

  it("a missing email is an unbilled 422; the same credential then pays once for a real answer", async () => {
    const authorization = await credentialFor(VERIFY);
    const rejected = await workerFetch(`${BASE}/email-verifier`, { headers: { authorization } });
    expect(rejected.status).toBe(422);
    expect(rejected.headers.get("x-payment-charged")).toBe("false");
    expect((await rejected.json<{ errors: { type: string } }>()).errors.type).toBe("params_invalid");

    const paid = await workerFetch(`${BASE}${VERIFY}`, { headers: { authorization } });
    expect(paid.status).toBe(200);
    expect(paid.headers.get("x-payment-charged")).toBe("true");
    const spent = await workerFetch(`${BASE}${VERIFY}`, { headers: { authorization } });
    expect(spent.status).toBe(402);
    expect(await settlementOf(challengeIdOf(authorization))).toMatchObject({
      endpoint: "/email-verifier",
      amount: "10000",
    });
  });

  it("a DNS failure upstream (503) is not billed and the credential stays spendable", async () => {
    const authorization = await credentialFor(VERIFY);
    const res = await workerFetch(`${BASE}/email-verifier?email=jane%40servfail-verify.test`, {
      headers: { authorization },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("x-payment-charged")).toBe("false");
    expect((await res.json<{ errors: { type: string } }>()).errors.type).toBe("dns_unavailable");
    expect(await settlementOf(challengeIdOf(authorization))).toBeNull();
    expect((await workerFetch(`${BASE}${VERIFY}`, { headers: { authorization } })).status).toBe(200);
  });

  it("20 concurrent replays of one credential against the Worker settle once", async () => {
    const authorization = await credentialFor("/domain-status?domain=gmail.com");
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        workerFetch(`${BASE}/domain-status?domain=gmail.com`, { headers: { authorization } }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.headers.get("x-payment-charged") === "true")).toHaveLength(1);
    expect(results.filter((r) => r.status === 402)).toHaveLength(19);
    // Twenty signature recoveries at once: about a second alone, several beside the typecheck on two busy cores.
  }, 20_000);

  it("only GET is sold", async () => {
    const res = await workerFetch(`${BASE}${VERIFY}`, { method: "POST" });
    expect(res.status).toBe(405);
  });
});
