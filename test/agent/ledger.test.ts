import { env } from "cloudflare:workers";
import { Store } from "mppx/server/core";
import { describe, expect, it } from "vitest";
import { ledgerFor } from "../../src/agent/ledger.js";
import { durableMppxStore } from "../../src/agent/ledger-client.js";

const entry = (claimId: string) => ({
  claimId,
  endpoint: "/email-verifier",
  amount: "10000",
  currency: "0x00000000000000000000000000000000000d5dc1",
  currencySymbol: "USDC",
  method: "evm",
  payer: "0x0000000000000000000000000000000000000001",
  reference: "evm-dev:0x01",
});

describe("PaymentLedger claims", () => {
  it("hold, refuse while held, come back after release, and stay spent after settlement", async () => {
    const id = `claim-${crypto.randomUUID()}`;
    const ledger = ledgerFor(env.PAYMENT_LEDGER!, id);
    const expires = Date.now() + 60_000;
    const first = await ledger.claim(id, expires);
    expect(first.status).toBe("claimed");
    expect((await ledger.claim(id, expires)).status).toBe("busy");
    expect(await ledger.release(id, "someone-else")).toBe(false);
    expect((await ledger.claim(id, expires)).status).toBe("busy");
    expect(await ledger.release(id, (first as { token: string }).token)).toBe(true);

    const second = await ledger.claim(id, expires);
    expect(second.status).toBe("claimed");
    expect((await ledger.settle("wrong-token", entry(id))).settled).toBe(false);
    expect((await ledger.settle((second as { token: string }).token, entry(id))).settled).toBe(true);
    expect((await ledger.claim(id, expires)).status).toBe("spent");
    expect(await ledger.settlement(id)).toMatchObject({ endpoint: "/email-verifier", payer: entry(id).payer });
  });

  it("hand a credential to exactly one of 50 concurrent claimers", async () => {
    const id = `claim-${crypto.randomUUID()}`;
    const ledger = ledgerFor(env.PAYMENT_LEDGER!, id);
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => ledger.claim(id, Date.now() + 60_000)));
    expect(outcomes.filter((o) => o.status === "claimed")).toHaveLength(1);
  });

  it("let an abandoned claim lapse only when its credential has expired", async () => {
    const id = `claim-${crypto.randomUUID()}`;
    const ledger = ledgerFor(env.PAYMENT_LEDGER!, id);
    expect((await ledger.claim(id, Date.now() - 1)).status).toBe("claimed");
    expect((await ledger.claim(id, Date.now() + 60_000)).status).toBe("claimed");
  });
});

describe("the mppx store on the ledger (Tempo replay markers)", () => {
  it("lets exactly one of 20 concurrent tryClaim calls win, and round-trips values", async () => {
    const store = durableMppxStore(env.PAYMENT_LEDGER!);
    const key = `mppx:charge:${crypto.randomUUID()}`;
    const wins = await Promise.all(Array.from({ length: 20 }, () => Store.tryClaim(store, key as never, Date.now() + 60_000)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    await store.put("k" as never, { n: 5n, s: "x" } as never);
    expect(await store.get("k" as never)).toEqual({ n: 5n, s: "x" });
    await store.delete("k" as never);
    expect(await store.get("k" as never)).toBeNull();
  });
});
