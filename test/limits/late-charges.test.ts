import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { describe, expect, it, vi } from "vitest";
import { executeCapability, type Invocation } from "../../src/capabilities/core/execute.js";
import { defineCapability } from "../../src/capabilities/core/registry.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { limiterFor } from "../../src/limits/admission.js";
import { LATE_CHARGE_MARGIN, mayChargeLater, rememberCredits } from "../../src/limits/late-charges.js";
import { call, createAccount, json } from "../support/accounts.js";
import { collect, recordingEnv } from "../support/limiter.js";

/** A capability double billed one phone credit when found. */
const found: Record<string, boolean> = {};
const probe = defineCapability({
  name: "late-probe",
  label: "Late probe",
  summary: "test double",
  tag: "Test",
  paths: ["/late-probe"],
  params: z.object({ q: z.string() }),
  rateGroup: "phone",
  cost: { balance: "phone", amount: 1 },
  usageCategory: "phones",
  handler: async (params) => ({ body: { data: { q: params.q } }, found: found[params.q] ?? true }),
});

const phoneUsed = async (accountId: number) => (await limiterFor(env, accountId).balances("scale", Date.now())).phone.used;
const decision = (execution: { lateCharge?: { whenDecided(f: (b: boolean) => Promise<unknown>): unknown } }) =>
  new Promise<boolean>((resolve) => execution.lateCharge!.whenDecided(async (billed) => resolve(billed)));

async function scaleAccount() {
  const a = await createAccount({ plan: "scale" });
  const recorded = recordingEnv();
  const inv = (w: ReturnType<typeof collect>): Invocation => ({ env: recorded.env, waitUntil: w.waitUntil, accountId: a.accountId, plan: "scale", surface: "v1", chargeLater: true });
  // The first billed call is admitted first, and tells this isolate the balance.
  const first = collect();
  expect((await executeCapability(probe, { q: crypto.randomUUID() }, inv(first))).billed).toBe(true);
  await first.settled();
  recorded.calls.length = 0;
  return { a, calls: recorded.calls, inv };
}

describe("late charges: a billed call that cannot be refused is answered first and decided after", () => {
  it("answers without a round trip to the limiter on a plan without limits, then charges the call and tells it it was billed", async () => {
    const { a, calls, inv } = await scaleAccount();
    const w = collect();
    const execution = await executeCapability(probe, { q: crypto.randomUUID() }, inv(w));
    expect(execution.response.status).toBe(200);
    expect(calls).toEqual([]);
    await w.settled();
    expect(calls).toEqual(["settleMany"]);
    expect(await decision(execution)).toBe(true);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });

  it("remembers a window billed late: the isolate answers the next identical call as a repeat, sending nothing", async () => {
    const { a, calls, inv } = await scaleAccount();
    const q = crypto.randomUUID();
    const w = collect();
    const first = await executeCapability(probe, { q }, inv(w));
    await w.settled();
    expect(await decision(first)).toBe(true);
    calls.length = 0;
    const again = collect();
    const repeat = await executeCapability(probe, { q }, inv(again));
    expect(repeat).toMatchObject({ billed: false, lateCharge: undefined });
    expect(calls).toEqual([]);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });

  it("bills identical calls answered at once one time, and tells the others they were repeats", async () => {
    const { a, inv } = await scaleAccount();
    const w = collect();
    const q = crypto.randomUUID();
    const executions = await Promise.all(Array.from({ length: 20 }, () => executeCapability(probe, { q }, inv(w))));
    expect(executions.every((e) => e.lateCharge)).toBe(true);
    await w.settled();
    const decisions = await Promise.all(executions.map(decision));
    expect(decisions.filter(Boolean)).toHaveLength(1);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });

  it("sends nothing for a call that found nothing, and charges nothing", async () => {
    const { a, calls, inv } = await scaleAccount();
    const q = crypto.randomUUID();
    found[q] = false;
    const w = collect();
    const execution = await executeCapability(probe, { q }, inv(w));
    expect(execution.lateCharge).toBeUndefined();
    expect(execution.billed).toBe(false);
    await w.settled();
    // Only the call's count went to the limiter (GET /v1/rate-limits shows it), after COUNT_WAIT_MS.
    expect(calls).toEqual(["settleMany"]);
    expect(await phoneUsed(a.accountId)).toBe(1);
  });

  it("sends a charge whose round trip failed once more, and logs a call as not billed when that fails too", async () => {
    const { a, inv } = await scaleAccount();
    const failing = (times: number) => recordingEnv(env as Env, { settleMany: times }).env;
    const once = collect();
    const retried = await executeCapability(probe, { q: crypto.randomUUID() }, { ...inv(once), env: failing(1) });
    expect(await decision(retried)).toBe(true);
    expect(await phoneUsed(a.accountId)).toBe(2);

    const twice = collect();
    const lost = await executeCapability(probe, { q: crypto.randomUUID() }, { ...inv(twice), env: failing(2) });
    expect(lost.lateCharge).toBeDefined();
    expect(await decision(lost)).toBe(false);
    await Promise.all([once.settled(), twice.settled()]);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });

  it("admits every call first again near the end of a balance, so refusals stay exact", async () => {
    const { a, calls, inv } = await scaleAccount();
    await runInDurableObject(limiterFor(env, a.accountId) as unknown as DurableObjectStub<AccountLimiter>, async (instance: AccountLimiter) => {
      const credits = (instance as unknown as { credits: { used: { phone: number } } }).credits;
      credits.used.phone = 10_000 - LATE_CHARGE_MARGIN - 1;
    });
    // The view this isolate holds is at most a second old: the next call still goes late, and reads the balance back.
    await new Promise((r) => setTimeout(r, 1_000));
    const w = collect();
    const admitted = await executeCapability(probe, { q: crypto.randomUUID() }, inv(w));
    expect(admitted.lateCharge).toBeUndefined();
    expect(admitted.billed).toBe(true);
    expect(calls).toContain("admit");
    await w.settled();
  });

  it("is logged with the cost the limiter decided: the row of a late-charged call waits for it", async () => {
    const a = await createAccount({ plan: "scale" });
    const phone = (n: number) => `/v1/phone-validator?phone=%2B336123450${String(n).padStart(2, "0")}`;
    for (const n of [10, 11, 10]) expect((await call(phone(n), { headers: a.headers })).status).toBe(200);
    let logs: { cost: boolean; uri: string }[] = [];
    await vi.waitUntil(async () => (logs = (await json(await call("/v1/logs?type=Phone%20Validator&limit=10", { headers: a.headers }))).data).length === 3);
    expect(logs.map((l) => l.cost)).toEqual([false, true, true]);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });
});

describe("when a call may be charged late", () => {
  const balances = (available: number) => ({ phone: { available, used: 0, allowance: 0 }, search: { available: 0, used: 0, allowance: 0 }, verification: { available: 0, used: 0, allowance: 0 } });

  it("only with a balance read less than a second ago that stays LATE_CHARGE_MARGIN above the cost of every unanswered late call", () => {
    const accountId = 9_000_000 + Math.floor(Math.random() * 1_000_000);
    const t = 1_000_000;
    expect(mayChargeLater(accountId, "scale", { phone: 1 }, t)).toBe(false);
    rememberCredits(accountId, "scale", balances(LATE_CHARGE_MARGIN + 2), t);
    expect(mayChargeLater(accountId, "scale", { phone: 1 }, t)).toBe(true);
    expect(mayChargeLater(accountId, "scale", { phone: 1 }, t)).toBe(true);
    expect(mayChargeLater(accountId, "scale", { phone: 1 }, t)).toBe(false);
    rememberCredits(accountId, "pro-plus", balances(LATE_CHARGE_MARGIN * 10), t);
    expect(mayChargeLater(accountId, "scale", { phone: 1 }, t)).toBe(false);
    rememberCredits(accountId, "scale", balances(LATE_CHARGE_MARGIN * 10), t);
    expect(mayChargeLater(accountId, "scale", { phone: 1 }, t + 999)).toBe(true);
    expect(mayChargeLater(accountId, "scale", { phone: 1 }, t + 1_000)).toBe(false);
    expect(mayChargeLater(accountId, "scale", { search: 1 }, t)).toBe(false);
  });
});
