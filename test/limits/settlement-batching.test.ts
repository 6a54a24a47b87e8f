import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { describe, expect, it, vi } from "vitest";
import { executeCapability } from "../../src/capabilities/core/execute.js";
import { defineCapability } from "../../src/capabilities/core/registry.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { admitRequest, flushOwed, limiterFor } from "../../src/limits/admission.js";
import { LimiterClient } from "../../src/limits/limiter-client.js";
import { call, createAccount, json } from "../support/accounts.js";
import { aroundExchange, collect, recordingEnv } from "../support/limiter.js";
import { settle } from "../support/settle.js";

// A capability double whose answers the test decides; the gate's settlement path is under test.
const answers: boolean[] = [];
const probe = defineCapability({
  name: "settle-probe",
  label: "Settle probe",
  summary: "test double",
  tag: "Test",
  paths: ["/settle-probe"],
  params: z.object({ n: z.number() }),
  rateGroup: null,
  cost: { balance: "search", amount: 1 },
  estimatedCostHeader: "X-Estimated-Cost",
  usageCategory: "search",
  handler: async () => {
    const found = answers.shift() ?? true;
    return { body: { data: found ? { ok: true } : null }, found };
  },
});

// Each call asks something new: an identical request within 30 days is billed once (repeat billing).
let calls = 0;
const run = (accountId: number, waitUntil: (p: Promise<unknown>) => void = () => {}) =>
  executeCapability(probe, { n: ++calls }, { env, waitUntil, accountId, plan: "free", surface: "v1" });

/** Leaves `left` search credits on a free account (25 a month). */
async function spendAllBut(accountId: number, left: number) {
  const r = await limiterFor(env, accountId).admit({ plan: "free", group: null, cost: { search: 25 - left } });
  expect(r.admitted).toBe(true);
}

describe("settlements batched with admissions", () => {
  it("applies a refund waiting in the isolate before the next admission decides", async () => {
    const a = await createAccount({ plan: "free" });
    await spendAllBut(a.accountId, 1);
    answers.push(false, true);
    // Nothing found: the last credit is refunded, but the refund is still waiting in this isolate...
    expect((await run(a.accountId)).response.status).toBe(200);
    // ...so the next call carries it and is admitted on that very credit.
    const next = await run(a.accountId);
    expect(next.response.status).toBe(200);
    expect((await run(a.accountId)).response.status).toBe(402);
  });

  it("answers /v1/me with the balances its own admission saw, waiting refunds included", async () => {
    const a = await createAccount({ plan: "free" });
    await spendAllBut(a.accountId, 1);
    answers.push(false);
    expect((await run(a.accountId)).response.status).toBe(200);
    // The refund is still waiting in this isolate; /v1/me's admission carries it and reports after it.
    const me = await json(await call("/v1/me", { headers: a.headers }));
    expect(me.data.pricing.available_searches).toBe(1);
  });

  it("sends a waiting settlement on its own when no admission comes to carry it", async () => {
    const a = await createAccount({ plan: "free" });
    await spendAllBut(a.accountId, 1);
    answers.push(false);
    const pending: Promise<unknown>[] = [];
    expect((await run(a.accountId, (p) => pending.push(p))).response.status).toBe(200);
    // No further admission for this account: the call's own waitUntil sends the refund.
    await Promise.all(pending);
    expect((await limiterFor(env, a.accountId).balances("free")).search.available).toBe(1);
  });

  it("sends the settlements of calls queued behind a waiting one in its batch, one round trip for all", async () => {
    const a = await createAccount({ plan: "free" });
    const { env: recorded, calls } = recordingEnv();
    const admissions = [];
    for (let i = 0; i < 5; i++) {
      const admitted = await admitRequest(recorded, {
        accountId: a.accountId,
        plan: "free",
        capability: { rateGroup: null, cost: { balance: "search", amount: 1 } },
        extraCost: {},
        now: Date.now(),
        waitUntil: () => {},
      });
      if (!admitted.admitted) throw new Error("not admitted");
      admissions.push(admitted);
    }
    calls.length = 0;
    for (const x of admissions) x.settle({ found: false });
    await flushOwed(recorded, a.accountId);
    expect(calls).toEqual(["exchange"]);
    expect((await limiterFor(env, a.accountId).balances("free")).search.used).toBe(0);
  });

  it("writes the charge and the reservation's removal, and nothing when the settlement comes again", async () => {
    const a = await createAccount({ plan: "free" });
    const admitted = await limiterFor(env, a.accountId).admit({ plan: "free", group: null, cost: { search: 1 } });
    if (!admitted.admitted) throw new Error("not admitted");
    const stub = limiterFor(env, a.accountId) as unknown as DurableObjectStub<AccountLimiter>;
    await runInDurableObject(stub, async (instance: AccountLimiter, state) => {
      // The limiter writes through the synchronous key-value API, inside one storage transaction.
      const put = vi.spyOn(state.storage.kv, "put");
      const del = vi.spyOn(state.storage.kv, "delete");
      const settle = () =>
        instance.exchange({
          plan: "free",
          settlements: [{ reservationIds: admitted.reservationIds, found: true, adjust: {} }],
        });
      await settle();
      // One write for the charge (the credits), one delete for the reservation.
      expect(put.mock.calls.map((c) => c[0])).toEqual(["credits"]);
      expect(del).toHaveBeenCalledWith(`r:${admitted.reservationIds[0]}`);
      // Settling again (already gone) changes nothing at all.
      await settle();
      expect(put).toHaveBeenCalledTimes(1);
      expect(del).toHaveBeenCalledTimes(1);
    });
  });

  it("sends a settlement queued while the message that carried an earlier one was in flight", async () => {
    // Settlement A arms the wait; an admission's message takes A with it and is held in flight;
    // settlement C comes meanwhile (the wait is armed: it arms nothing); the message is answered.
    // C must still go, though no request of this account comes again.
    const a = await createAccount({ plan: "scale" });
    const base = env as Env;
    const gate = { holding: false, entered: false, release: () => {} };
    const held = aroundExchange(base, async (exchange, args) => {
      if (gate.holding) {
        gate.holding = false;
        gate.entered = true;
        await new Promise<void>((r) => (gate.release = r));
      }
      return exchange(...args);
    });
    const client = new LimiterClient({ settleWaitMs: 1_000, rideWaitMs: 1_000 });
    const { waitUntil, settled } = collect();
    const admit = () =>
      admitRequest(held, {
        accountId: a.accountId,
        plan: "enterprise",
        capability: { rateGroup: "search", cost: { balance: "search", amount: 1 } },
        extraCost: {},
        now: Date.now(),
        waitUntil,
        client,
      });
    const [first, third] = [await admit(), await admit()];
    if (!first.admitted || !third.admitted) throw new Error("both calls are admitted");
    const decidedFirst = first.settle({ found: true });
    gate.holding = true;
    const second = admit(); // its message carries the first settlement, and is held
    await settle(() => gate.entered);
    const decidedThird = third.settle({ found: true });
    gate.release();
    expect((await second).admitted).toBe(true);
    await settled();
    expect(decidedFirst?.decided?.charged).toEqual({ search: 1 });
    expect(decidedThird?.decided?.charged).toEqual({ search: 1 });
  });
});
