import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Store } from "mppx/server/core";
import { describe, expect, it } from "vitest";
import { ledgerFor, MAX_UNBILLED_RUNS, PaymentLedger, UNBILLED_RUN_WINDOW_MS } from "../../src/agent/ledger.js";
import { durableMppxStore } from "../../src/agent/ledger-client.js";

const entry = (holdId: string) => ({
  holdId,
  endpoint: "/email-verifier",
  amount: "10000",
  currency: "0x00000000000000000000000000000000000d5dc1",
  currencySymbol: "USDC",
  method: "evm",
  payer: "0x0000000000000000000000000000000000000001",
  reference: "evm-dev:0x01",
});

describe("PaymentLedger holds", () => {
  it("hold, refuse while held, come back after release, and stay spent after settlement", async () => {
    const id = `hold-${crypto.randomUUID()}`;
    const ledger = ledgerFor(env.PAYMENT_LEDGER!, id);
    const expires = Date.now() + 60_000;
    const first = await ledger.hold(id, expires);
    expect(first.status).toBe("held");
    expect((await ledger.hold(id, expires)).status).toBe("busy");
    expect(await ledger.release(id, "someone-else")).toBe(false);
    expect((await ledger.hold(id, expires)).status).toBe("busy");
    expect(await ledger.release(id, (first as { token: string }).token)).toBe(true);

    const second = await ledger.hold(id, expires);
    expect(second.status).toBe("held");
    expect((await ledger.settle("wrong-token", entry(id))).settled).toBe(false);
    expect((await ledger.settle((second as { token: string }).token, entry(id))).settled).toBe(true);
    expect((await ledger.hold(id, expires)).status).toBe("spent");
    expect(await ledger.settlement(id)).toMatchObject({ endpoint: "/email-verifier", payer: entry(id).payer });
  });

  it("hand a credential to exactly one of 50 concurrent holders", async () => {
    const id = `hold-${crypto.randomUUID()}`;
    const ledger = ledgerFor(env.PAYMENT_LEDGER!, id);
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => ledger.hold(id, Date.now() + 60_000)));
    expect(outcomes.filter((o) => o.status === "held")).toHaveLength(1);
  });

  it("let an abandoned hold lapse only when its credential has expired", async () => {
    const id = `hold-${crypto.randomUUID()}`;
    const ledger = ledgerFor(env.PAYMENT_LEDGER!, id);
    expect((await ledger.hold(id, Date.now() - 1)).status).toBe("held");
    expect((await ledger.hold(id, Date.now() + 60_000)).status).toBe("held");
  });
});

describe("PaymentLedger unbilled runs per credential", () => {
  it(`refuses a hold for a while after ${MAX_UNBILLED_RUNS} unbilled runs in one window, then holds again and counts a new window`, async () => {
    const id = `hold-${crypto.randomUUID()}`;
    const ledger = ledgerFor(env.PAYMENT_LEDGER!, id);
    const t0 = Date.now();
    const expires = t0 + 10 * 60_000;
    for (let i = 0; i < MAX_UNBILLED_RUNS; i++) {
      const held = (await ledger.hold(id, expires, t0 + i * 1000)) as { status: string; token: string };
      expect(held.status).toBe("held");
      expect(await ledger.release(id, held.token, true, t0 + i * 1000)).toBe(true);
    }
    const refused = await ledger.hold(id, expires, t0 + 10_000);
    expect(refused).toEqual({
      status: "unbilled_limit",
      runs: MAX_UNBILLED_RUNS,
      retryAfterSeconds: (UNBILLED_RUN_WINDOW_MS - 10_000) / 1000,
    });
    // Releases for the service's own faults never count; the window closes on time.
    const later = (await ledger.hold(id, expires, t0 + UNBILLED_RUN_WINDOW_MS)) as { status: string; token: string };
    expect(later.status).toBe("held");
    expect(await ledger.release(id, later.token, true, t0 + UNBILLED_RUN_WINDOW_MS)).toBe(true);
    // That run opened a new window with one run in it.
    expect((await ledger.hold(id, expires, t0 + UNBILLED_RUN_WINDOW_MS + 1)).status).toBe("held");
  });
});

describe("the mppx store on the ledger (Tempo replay markers)", () => {
  it("lets exactly one of 20 concurrent tryClaim calls win, and round-trips values", async () => {
    const store = durableMppxStore(env.PAYMENT_LEDGER!);
    const key = `mppx:charge:${crypto.randomUUID()}`;
    const wins = await Promise.all(
      Array.from({ length: 20 }, () => Store.tryClaim(store, key as never, Date.now() + 60_000)),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    await store.put("k" as never, { n: 5n, s: "x" } as never);
    expect(await store.get("k" as never)).toEqual({ n: 5n, s: "x" });
    await store.delete("k" as never);
    expect(await store.get("k" as never)).toBeNull();
  });
});

describe("PaymentLedger storage from before the claims → holds rename", () => {
  it("keeps a spent credential spent and its settlement readable after the upgrade", async () => {
    const id = `former-${crypto.randomUUID()}`;
    const stub = ledgerFor(env.PAYMENT_LEDGER!, id);
    await runInDurableObject(stub, async (_instance: PaymentLedger, state) => {
      // The schema as the first deployments wrote it.
      state.storage.sql.exec("DROP TABLE IF EXISTS holds");
      state.storage.sql.exec("DROP TABLE IF EXISTS settlements");
      state.storage.sql.exec(
        "CREATE TABLE claims (id TEXT PRIMARY KEY, state TEXT NOT NULL, token TEXT, expires_at INTEGER NOT NULL, unbilled_runs INTEGER NOT NULL DEFAULT 0)",
      );
      state.storage.sql.exec(`CREATE TABLE settlements (claim_id TEXT PRIMARY KEY, endpoint TEXT NOT NULL, amount TEXT NOT NULL, currency TEXT NOT NULL,
        currency_symbol TEXT NOT NULL, method TEXT NOT NULL, payer TEXT, reference TEXT NOT NULL, settled_at INTEGER NOT NULL)`);
      state.storage.sql.exec(
        "INSERT INTO claims (id, state, token, expires_at) VALUES (?, 'spent', NULL, ?)",
        id,
        Date.now() + 60_000,
      );
      state.storage.sql.exec(
        "INSERT INTO settlements VALUES (?, '/email-verifier', '10000', '0x0d5dc1', 'USDC', 'evm', NULL, 'evm-dev:0x02', 1)",
        id,
      );
      // What a restarted object does: its constructor upgrades the storage in place.
      const upgraded = new PaymentLedger(state, env);
      expect(upgraded.hold(id, Date.now() + 60_000).status).toBe("spent");
      expect(upgraded.settlement(id)).toMatchObject({
        holdId: id,
        endpoint: "/email-verifier",
        reference: "evm-dev:0x02",
      });
    });
  });
});
