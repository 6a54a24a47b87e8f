import { describe, expect, it } from "vitest";
import { Challenge, Receipt } from "mppx";
import { BASE, challengeIdOf, credentialFor, payingAgent, settlementOf, workerFetch } from "./support.js";
import { DEV_TOKENS } from "../../src/agent/dev-chain.js";

const PATH = "/phone-validator?phone=%2B33612345678";

describe("paid agent surface (dev method, real signatures)", () => {
  it("answers an unpaid request with one Payment challenge per currency and a problem+json body", async () => {
    const res = await workerFetch(`${BASE}${PATH}`);
    expect(res.status).toBe(402);
    expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
    const challenges = Challenge.fromResponseList(res);
    expect(challenges).toHaveLength(2);
    expect(challenges.map((c) => c.method)).toEqual(["evm", "evm"]);
    expect(challenges.map((c) => (c.request as { currency: string }).currency.toLowerCase()).sort()).toEqual([DEV_TOKENS.USDC, DEV_TOKENS.USDT].sort());
    const body = await res.json<{ type: string; status: number }>();
    expect(body.type).toBe("https://paymentauth.org/problems/payment-required");
  });

  it("pays with the mppx client and gets the answer, a receipt and X-Payment-Charged: true", async () => {
    const { client } = payingAgent();
    const res = await client.fetch(`${BASE}${PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-payment-charged")).toBe("true");
    const receipt = Receipt.fromResponse(res);
    expect(receipt.status).toBe("success");
    expect(receipt.method).toBe("evm");
    const body = await res.json<{ data: { e164_format: string } }>();
    expect(body.data.e164_format).toBe("+33612345678");
  });

  it("records the settlement in the ledger", async () => {
    const agent = payingAgent({ prefer: "USDT" });
    const authorization = await credentialFor(PATH, agent);
    const res = await workerFetch(`${BASE}${PATH}`, { headers: { authorization } });
    expect(res.status).toBe(200);
    const row = await settlementOf(challengeIdOf(authorization));
    expect(row).toMatchObject({ endpoint: "/phone-validator", amount: "5000", currencySymbol: "USDT", method: "evm", payer: agent.account.address });
    expect(row!.reference).toMatch(/^evm-dev:0x/);
  });
});
