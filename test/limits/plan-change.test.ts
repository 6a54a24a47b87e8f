import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { executeCapability, type Invocation } from "../../src/capabilities/core/execute.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { LimiterClient } from "../../src/limits/limiter-client.js";
import { addKey, call, createAccount } from "../support/accounts.js";
import { billedOf, collect, probeCapability } from "../support/limiter.js";

// A plan change reaches the isolates' auth caches up to AUTH_CACHE_TTL_MS late, and not all at
// once: one credential of the account may be read again while another is still cached with the old
// plan, so the same isolate (the same line to the limiter) sends messages under both plans.
const probe = probeCapability("plan-change-probe", "search", async () => true);
type Stub = DurableObjectStub<AccountLimiter>;
const stubOf = (accountId: number) =>
  env.ACCOUNT_LIMITER.get(env.ACCOUNT_LIMITER.idFromName(`account:${accountId}`)) as Stub;

async function searchUsed(accountId: number, plan: string): Promise<number> {
  return (await stubOf(accountId).balances(plan)).search.used;
}

describe("a plan changed mid-month", () => {
  it("records a call billed under the new plan even when its settlement rides a message of the old plan", async () => {
    // Upgraded from basic (500 search credits a month) to growth (2,500), with 800 used this month.
    const a = await createAccount({ plan: "growth" });
    await runInDurableObject(stubOf(a.accountId), (instance: AccountLimiter) => {
      const book = (
        instance as unknown as { credits: { current(now: number): { used: { search: number } }; dirty: boolean } }
      ).credits;
      book.current(Date.now()).used.search = 800;
      book.dirty = true;
    });
    // Settlements wait for the next admission to ride with (no message of their own meanwhile).
    const client = new LimiterClient({ settleWaitMs: 60_000, rideWaitMs: 60_000 });
    const w = collect();
    const call = (plan: string): Invocation => ({
      env: env as Env,
      waitUntil: w.waitUntil,
      accountId: a.accountId,
      plan,
      surface: "v1",
      client,
    });
    // A fresh credential: growth. The call reserves its credit and finds something.
    const fresh = await executeCapability(probe, { q: "fresh" }, call("growth"));
    expect(fresh.response.status).toBe(200);
    const billed = billedOf(fresh);
    // A credential still cached with the old plan: basic, whose allowance is spent (800 > 500).
    const stale = await executeCapability(probe, { q: "stale" }, call("basic"));
    expect(stale.response.status).toBe(402);
    await client.flush(env as Env, a.accountId);
    expect(await billed).toBe(true);
    // Billed means charged: the month's usage holds the credit.
    expect(await searchUsed(a.accountId, "growth")).toBe(801);
  });
});

/** The month's search usage set on the account's limiter (as earlier calls would have charged it). */
async function setSearchUsed(accountId: number, used: number): Promise<void> {
  await runInDurableObject(stubOf(accountId), (instance: AccountLimiter) => {
    const book = (
      instance as unknown as { credits: { current(now: number): { used: { search: number } }; dirty: boolean } }
    ).credits;
    book.current(Date.now()).used.search = used;
    book.dirty = true;
  });
  // Stored with the next decision: an empty message stores it.
  await stubOf(accountId).exchange({ plan: "free" });
}

describe("the plan a limiter decides with", () => {
  it("charges a late charge its lease no longer covers under the account's plan, not a stale message's", async () => {
    // Upgraded from pro-plus (25,000 search credits a month) to scale (100,000) with 30,000 used:
    // POST /v1/plan tells the limiter once D1 holds the new plan.
    const a = await createAccount({ plan: "scale" });
    await setSearchUsed(a.accountId, 30_000);
    await stubOf(a.accountId).setPlan("scale");
    // An isolate whose auth cache still holds pro-plus paid a call from a lease the limiter has
    // since released (its isolate went quiet past LEASE_TTL_MS): the charge goes to the balance.
    const reply = await stubOf(a.accountId).exchange({
      plan: "pro-plus",
      charges: [
        {
          key: "late-stale-plan",
          lease: "lease-released-before",
          accountId: a.accountId,
          capability: "plan-change-probe",
          source: "api",
          fingerprint: "fp-late-stale-plan",
          cost: { search: 1 },
        },
      ],
    });
    // Scale's allowance covers it: billed, and in the month's usage.
    expect(reply.charges).toEqual([{ billed: true, at: expect.any(Number) }]);
    expect(await searchUsed(a.accountId, "scale")).toBe(30_001);
  });

  it("refuses a stale message's admission the account's new, smaller plan cannot pay (POST /v1/plan tells the limiter)", async () => {
    // On growth (2,500 search credits) with 100 used, then back to free (25): over the allowance.
    const a = await createAccount({ plan: "growth" });
    const key = await addKey(a.accountId);
    await setSearchUsed(a.accountId, 100);
    const down = await call("/v1/plan", {
      method: "POST",
      headers: { ...key.headers, "content-type": "application/json" },
      body: JSON.stringify({ plan: "free" }),
    });
    expect(down.status, await down.clone().text()).toBe(200);
    // An isolate whose auth cache still holds growth asks for a credit.
    const reply = await stubOf(a.accountId).exchange({
      plan: "growth",
      admissions: [{ key: "stale-admission", plan: "growth", group: null, cost: { search: 1 } }],
    });
    expect(reply.admissions[0]).toMatchObject({ admitted: false, reason: "credits", available: 0, needed: 1 });
    // The balances it answers are the plan it holds.
    expect((await stubOf(a.accountId).balances("growth")).search).toEqual({ available: 0, used: 100, allowance: 25 });
  });
});
