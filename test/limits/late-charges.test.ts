import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Execution, executeCapability, type Invocation } from "../../src/capabilities/core/execute.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { limiterFor } from "../../src/limits/admission.js";
import { IsolateLease } from "../../src/limits/isolate-lease.js";
import { LimiterClient } from "../../src/limits/limiter-client.js";
import { call, createAccount, json } from "../support/accounts.js";
import { collect, probeCapability, recordingEnv } from "../support/limiter.js";
import { settle } from "../support/settle.js";

/** A capability double billed one phone credit when found. */
const found: Record<string, boolean> = {};
const probe = probeCapability("late-probe", "phone", (q) => found[q] ?? true);

const phoneUsed = async (accountId: number) => (await limiterFor(env, accountId).balances("scale")).phone.used;
const billed = (execution: Execution) =>
  new Promise<boolean>((resolve) => execution.billing.whenDecided(async (b) => resolve(b)));

/** A scale account (no limits) and an isolate of its own, whose first billed call drew a lease. */
async function scaleAccount() {
  const a = await createAccount({ plan: "scale" });
  const recorded = recordingEnv(env as Env);
  const client = new LimiterClient({ retryMs: 5, countWaitMs: 5 });
  const inv = (w: ReturnType<typeof collect>): Invocation => ({
    env: recorded.env,
    waitUntil: w.waitUntil,
    accountId: a.accountId,
    plan: "scale",
    surface: "v1",
    chargeLater: true,
    client,
  });
  // The first billed call is admitted first (nothing to pay from yet) and draws the isolate's lease.
  const first = collect();
  expect(await billed(await executeCapability(probe, { q: crypto.randomUUID() }, inv(first)))).toBe(true);
  await first.settled();
  recorded.calls.length = 0;
  return { a, calls: recorded.calls, inv, client, failNext: recorded.failNext, loseNext: recorded.loseNext };
}

describe("late charges: a billed call that cannot be refused is paid from the isolate's lease, and decided after", () => {
  it("answers without a round trip once the isolate holds a lease, then charges the call and tells it it was billed", async () => {
    const { a, calls, inv } = await scaleAccount();
    const w = collect();
    const execution = await executeCapability(probe, { q: crypto.randomUUID() }, inv(w));
    expect(execution.response.status).toBe(200);
    expect(calls).toEqual([]);
    await w.settled();
    expect(calls).toEqual(["exchange"]);
    expect(await billed(execution)).toBe(true);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });

  it("sets the lease's credits aside on the limiter, and shows them to the account as not spent", async () => {
    const { a, client } = await scaleAccount();
    const lease = client.currentLease(a.accountId)!;
    expect(lease.spendable().phone).toBe(200);
    expect((await limiterFor(env, a.accountId).balances("scale")).phone).toMatchObject({
      used: 1,
      available: 10_000 - 1,
    });
    // Another isolate's reservation cannot take them.
    const stub = limiterFor(env, a.accountId) as unknown as DurableObjectStub<AccountLimiter>;
    const all = await stub.admit({ plan: "scale", group: null, cost: { phone: 10_000 - 1 } });
    expect(all).toMatchObject({ admitted: false, reason: "credits", available: 10_000 - 1 - 200 });
  });

  it("remembers a window billed late: the isolate answers the next identical call as a repeat, sending nothing", async () => {
    const { a, calls, inv } = await scaleAccount();
    const q = crypto.randomUUID();
    const w = collect();
    expect(await billed(await executeCapability(probe, { q }, inv(w)))).toBe(true);
    await w.settled();
    calls.length = 0;
    const again = collect();
    expect(await billed(await executeCapability(probe, { q }, inv(again)))).toBe(false);
    expect(calls).toEqual([]);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });

  it("bills identical calls answered at once one time, and tells the others they were repeats", async () => {
    const { a, inv } = await scaleAccount();
    const w = collect();
    const q = crypto.randomUUID();
    const executions = await Promise.all(Array.from({ length: 20 }, () => executeCapability(probe, { q }, inv(w))));
    await w.settled();
    expect((await Promise.all(executions.map(billed))).filter(Boolean)).toHaveLength(1);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });

  it("sends no charge for a call that found nothing, and its credits go back to the lease", async () => {
    const { a, inv, client } = await scaleAccount();
    const q = crypto.randomUUID();
    found[q] = false;
    const before = client.currentLease(a.accountId)!.spendable().phone;
    const w = collect();
    const execution = await executeCapability(probe, { q }, inv(w));
    expect(await billed(execution)).toBe(false);
    expect(client.currentLease(a.accountId)!.spendable().phone).toBe(before);
    await w.settled();
    expect(await phoneUsed(a.accountId)).toBe(1);
  });

  it("sends a charge whose round trip failed again until the limiter answers, and bills it once", async () => {
    const { a, inv, failNext } = await scaleAccount();
    failNext("exchange", 2);
    const w = collect();
    const execution = await executeCapability(probe, { q: crypto.randomUUID() }, inv(w));
    await w.settled();
    expect(await billed(execution)).toBe(true);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });

  it("bills once a charge the limiter took while its reply was lost (the same charge sent again is answered as before)", async () => {
    const { a, inv, loseNext } = await scaleAccount();
    loseNext("exchange", 1);
    const w = collect();
    const execution = await executeCapability(probe, { q: crypto.randomUUID() }, inv(w));
    await w.settled();
    expect(await billed(execution)).toBe(true);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });

  it("draws no lease near the end of a balance: every call is admitted first again, so refusals stay exact", async () => {
    const a = await createAccount({ plan: "scale" });
    // 900 phone credits left: under the lease floor (1,000).
    const stub = limiterFor(env, a.accountId) as unknown as DurableObjectStub<AccountLimiter>;
    await runInDurableObject(stub, async (instance: AccountLimiter) => {
      const book = (instance as unknown as { credits: { current(now: number): { used: { phone: number } } } }).credits;
      book.current(Date.now()).used.phone = 9_100;
    });
    const recorded = recordingEnv();
    const client = new LimiterClient({ countWaitMs: 5 });
    const w = collect();
    const inv: Invocation = {
      env: recorded.env,
      waitUntil: w.waitUntil,
      accountId: a.accountId,
      plan: "scale",
      surface: "v1",
      chargeLater: true,
      client,
    };
    for (let i = 0; i < 3; i++)
      expect(await billed(await executeCapability(probe, { q: crypto.randomUUID() }, inv))).toBe(true);
    await w.settled();
    expect(client.currentLease(a.accountId)).toBeNull();
    expect(recorded.calls.filter((c) => c === "exchange").length).toBeGreaterThanOrEqual(3);
    expect((await limiterFor(env, a.accountId).balances("scale")).phone).toMatchObject({ used: 9_103, available: 897 });
  });

  it("is logged with the cost the limiter decided: the row of a late-charged call waits for it", async () => {
    const a = await createAccount({ plan: "scale" });
    const phone = (n: number) => `/v1/phone-validator?phone=%2B336123450${String(n).padStart(2, "0")}`;
    for (const n of [10, 11, 10]) expect((await call(phone(n), { headers: a.headers })).status).toBe(200);
    let logs: { cost: boolean; uri: string }[] = [];
    await settle(async () => {
      logs = (await json(await call("/v1/logs?type=Phone%20Validator&limit=10", { headers: a.headers }))).data;
      return logs.length === 3;
    });
    expect(logs.map((l) => l.cost)).toEqual([false, true, true]);
    expect(await phoneUsed(a.accountId)).toBe(2);
  });
});

describe("an isolate's lease", () => {
  const topUp = (lease: IsolateLease, held: number, sentAt: number) => {
    const sent = lease.request(sentAt)!;
    lease.update({ id: lease.id, held: { phone: held }, open: true, refused: [] }, sentAt, sent);
    return sent;
  };
  const paid = (ticket: number | null) => ticket !== null;

  it("pays only what the limiter said it holds, less what it spent and has not reported", () => {
    const lease = new IsolateLease(3, 0, 1_000);
    expect(lease.take({ phone: 1 }, 0)).toBeNull();
    expect(topUp(lease, 3, 0).want).toEqual({ phone: 3 });
    const tickets = [1, 2, 3, 4].map(() => lease.take({ phone: 1 }, 10));
    expect(tickets.map(paid)).toEqual([true, true, true, false]);
    lease.end(tickets[0]!); // found nothing
    const again = lease.take({ phone: 1 }, 10);
    expect(paid(again)).toBe(true);
    // The limiter took two charges from it (held 1), one is still unreported.
    for (const t of [tickets[1]!, tickets[2]!]) {
      lease.send(t);
      lease.end(t);
    }
    lease.update({ id: lease.id, held: { phone: 1 }, open: true, refused: [] }, 10, lease.request(10)!);
    expect(lease.take({ phone: 1 }, 20)).toBeNull();
  });

  it("pays nothing once its use period is over, until a top-up renews it", () => {
    const lease = new IsolateLease(5, 0, 1_000);
    topUp(lease, 5, 100);
    expect(paid(lease.take({ phone: 1 }, 1_099))).toBe(true);
    expect(lease.take({ phone: 1 }, 1_100)).toBeNull();
    topUp(lease, 5, 1_100);
    expect(paid(lease.take({ phone: 1 }, 1_200))).toBe(true);
  });

  it("stops paying when a top-up is refused, and is given back once no call it paid is unanswered", () => {
    const lease = new IsolateLease(5, 0, 1_000);
    topUp(lease, 5, 0);
    const ticket = lease.take({ phone: 1 }, 1)!;
    const sent = lease.request(1)!;
    lease.update({ id: lease.id, held: { phone: 5 }, open: true, refused: ["phone"] }, 1, sent);
    expect(lease.take({ phone: 1 }, 2)).toBeNull();
    expect(lease.request(2)).toBeUndefined();
    lease.send(ticket);
    lease.end(ticket);
    expect(lease.request(3)).toMatchObject({ close: true });
  });

  it("forgets a call that never sent its charge within the call time: its credits are spent again, the lease given back", () => {
    const lease = new IsolateLease(1, 0, 1_000, 5_000);
    topUp(lease, 1, 0);
    const never = lease.take({ phone: 1 }, 10)!; // answered 504 at the deadline: its report is never asked
    expect(lease.take({ phone: 1 }, 20)).toBeNull();
    topUp(lease, 1, 5_100);
    expect(paid(lease.take({ phone: 1 }, 5_200))).toBe(true);
    // Its charge, asked after all, no longer comes from the lease.
    expect(lease.send(never)).toBe(false);
  });

  it("keeps a call whose charge was sent, however long its answer takes", () => {
    const lease = new IsolateLease(1, 0, 1_000, 5_000);
    topUp(lease, 1, 0);
    const ticket = lease.take({ phone: 1 }, 10)!;
    expect(lease.send(ticket)).toBe(true);
    topUp(lease, 1, 60_000);
    expect(lease.take({ phone: 1 }, 60_001)).toBeNull();
  });
});
