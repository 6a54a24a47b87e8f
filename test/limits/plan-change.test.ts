import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { executeCapability, type Invocation } from "../../src/capabilities/core/execute.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { LimiterClient } from "../../src/limits/limiter-client.js";
import { createAccount } from "../support/accounts.js";
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
