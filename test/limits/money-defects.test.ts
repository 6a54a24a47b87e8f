import { createExecutionContext, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { processChunk } from "../../src/bulk/consumer.js";
import type { BulkJob } from "../../src/bulk/job-object.js";
import { jobStub } from "../../src/bulk/jobs.js";
import { executeCapability, type Invocation } from "../../src/capabilities/core/execute.js";
import { batchMemo } from "../../src/engine/memo.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { LimiterClient } from "../../src/limits/limiter-client.js";
import { createdId, createJob, launchLosingMessages } from "../bulk/support.js";
import { createAccount, type TestAccount } from "../support/accounts.js";
import { aroundExchange, billedOf, collect, limiterClock, probeCapability, recordingEnv } from "../support/limiter.js";
import { settle } from "../support/settle.js";
import { slowRows } from "../support/slow-time.js";

// One test per money defect found by reading and trying the code (each fails when its fix is
// taken out; see the commits that added them).

/** A capability double billed one search credit when found; `gate` holds its answers back. */
const gate: Promise<void> = Promise.resolve();
const found: Record<string, boolean> = {};
const probe = probeCapability("money-probe", "search", async (q) => {
  await gate;
  return found[q] ?? true;
});

type Stub = DurableObjectStub<AccountLimiter>;
const stubOf = (accountId: number) =>
  env.ACCOUNT_LIMITER.get(env.ACCOUNT_LIMITER.idFromName(`account:${accountId}`)) as Stub;
/** The account's balance of a kind, as the limiter holds it (the runtime's arguments of every version of balances()). */
const balance = async (accountId: number, plan: string, kind: "search" | "verification" | "phone") =>
  (
    await (
      stubOf(accountId) as unknown as {
        balances(plan: string, now: number): Promise<Record<string, { used: number; available: number }>>;
      }
    ).balances(plan, Date.now())
  )[kind]!;

/** Sets what the account's month has used of a balance, at instant `at`. */
async function setUsed(accountId: number, kind: "search" | "phone", used: number, at = Date.now()) {
  await runInDurableObject(stubOf(accountId), (instance: AccountLimiter) => {
    const book = (
      instance as unknown as {
        credits: { current(now: number): { used: Record<"search" | "phone", number> }; dirty: boolean };
      }
    ).credits;
    book.current(at).used[kind] = used;
    book.dirty = true;
  });
}

/** Leaves `left` search credits of a pro-plus account's month (25,000). */
const leaveSearchCredits = (accountId: number, left: number, at: number) =>
  setUsed(accountId, "search", 25_000 - left, at);

describe("money defects", () => {
  it("a charge decided at an earlier instant never resets or moves this month's usage (months are the limiter's)", async () => {
    const a = await createAccount({ plan: "pro-plus" });
    const midnight = Date.UTC(2027, 5, 1); // 1 June 2027, 00:00 UTC
    const clock = await limiterClock(stubOf(a.accountId), midnight - 2_000);
    const late = recordingEnv(env as Env);
    const isolate = (e: Env, client: LimiterClient, t: number, w = collect()): Invocation => ({
      env: e,
      waitUntil: w.waitUntil,
      accountId: a.accountId,
      plan: "pro-plus",
      surface: "v1",
      chargeLater: true,
      client,
      now: () => t,
    });
    const b = new LimiterClient({ retryMs: 5, countWaitMs: 5 });
    // Isolate B draws a lease before midnight, then answers a call at 23:59:59 whose charge cannot go yet.
    expect(await billedOf(await executeCapability(probe, { q: "may-1" }, isolate(late.env, b, midnight - 2_000)))).toBe(
      true,
    );
    late.failNext("exchange", 1_000);
    const stuck = await executeCapability(probe, { q: "may-2" }, isolate(late.env, b, midnight - 1_000));
    const stuckBilled = billedOf(stuck);
    // Past midnight on the limiter's clock, isolate A's calls are charged in June.
    clock.at(midnight + 1_000);
    const aClient = new LimiterClient({ retryMs: 5, countWaitMs: 5 });
    for (let i = 0; i < 20; i++)
      expect(
        await billedOf(
          await executeCapability(probe, { q: `june-${i}` }, isolate(env as Env, aClient, midnight + 1_000)),
        ),
      ).toBe(true);
    expect((await balance(a.accountId, "pro-plus", "search")).used).toBe(20);
    // B's charge for the call it answered at 23:59:59 now reaches the limiter: charged in June, nothing reset.
    late.failNext("exchange", 0);
    await b.flush(late.env, a.accountId);
    expect(await stuckBilled).toBe(true);
    expect((await balance(a.accountId, "pro-plus", "search")).used).toBe(21);
    // The limiter's clock itself steps back a little (an object moved to a machine a second behind):
    // the month it is in does not move back, nor is its usage reset.
    clock.at(midnight - 500);
    expect(
      await billedOf(await executeCapability(probe, { q: "skewed" }, isolate(env as Env, aClient, midnight - 500))),
    ).toBe(true);
    expect((await balance(a.accountId, "pro-plus", "search")).used).toBe(22);
    clock.at(midnight + 2_000);
    expect((await balance(a.accountId, "pro-plus", "search")).used).toBe(22);
    clock.at(null);
  });

  it("late charges never answer past the balance, however many isolates answer at once", async () => {
    const a = await createAccount({ plan: "pro-plus" });
    await leaveSearchCredits(a.accountId, 40, Date.now());
    // Four isolates, each drawing a lease of 10 with its first call (the fourth finds too few left).
    const isolates = Array.from(
      { length: 4 },
      () => new LimiterClient({ leaseCredits: 10, leaseFloor: 0, countWaitMs: 5 }),
    );
    const w = collect();
    const run = (client: LimiterClient, q: string) =>
      executeCapability(
        probe,
        { q },
        {
          env,
          waitUntil: w.waitUntil,
          accountId: a.accountId,
          plan: "pro-plus",
          surface: "v1",
          chargeLater: true,
          client,
        },
      );
    const firsts = await Promise.all(isolates.map((client, i) => run(client, `iso${i}-first`)));
    // Then 15 calls each, all at once: each isolate pays from its lease what it holds, and asks the limiter for the rest.
    const calls = [
      ...firsts,
      ...(await Promise.all(
        isolates.flatMap((client, i) => Array.from({ length: 15 }, (_, k) => run(client, `iso${i}-call${k}`))),
      )),
    ];
    const answered = calls.filter((c) => c.response.status === 200);
    const reports = await Promise.all(answered.map(billedOf));
    await w.settled();
    for (const client of isolates) await client.flush(env as Env, a.accountId);
    // Every answer given was billed at its full cost, exactly as many as there were credits; the others were 402.
    expect(reports.every(Boolean)).toBe(true);
    expect(answered.length).toBe(40);
    expect(calls.filter((c) => c.response.status === 402)).toHaveLength(calls.length - 40);
    expect(await balance(a.accountId, "pro-plus", "search")).toMatchObject({ used: 25_000, available: 0 });
  });

  it("charges and settlements are never dropped when a round trip fails, loses its reply, or its sender never resumes", async () => {
    const a = await createAccount({ plan: "enterprise" }); // every billed call admitted through its limiter first (no rate share)
    const faulty = recordingEnv(env as Env);
    // Nothing gives a lost message up (giveUpMs never passes in this test): only a resend by the
    // next request on the line answers it, so a request held behind a lost sender would never end.
    const client = new LimiterClient({
      retryMs: 5,
      resendAfterMs: 40,
      countWaitMs: 5,
      giveUpMs: Number.MAX_SAFE_INTEGER,
      rateShareUnits: 0,
    });
    const w = collect();
    const run = (q: string) =>
      executeCapability(
        probe,
        { q },
        { env: faulty.env, waitUntil: w.waitUntil, accountId: a.accountId, plan: "enterprise", surface: "v1", client },
      );
    for (const q of ["hit-1", "hit-2", "miss-1"]) found[q] = !q.startsWith("miss");
    const first = await Promise.all(["hit-1", "miss-1"].map(run));
    // Their settlements' round trips fail twice, then the limiter decides one whose reply is lost.
    faulty.failNext("exchange", 2);
    faulty.loseNext("exchange", 1);
    const billed = await Promise.all(first.map(billedOf));
    expect(billed).toEqual([true, false]);
    // A request whose round trip reached the limiter never resumes; the next one on the line is not held behind it.
    const base = env as Env;
    let hang = true;
    // The first exchange is sent, but its sender never resumes.
    const stuck = aroundExchange(
      faulty.env,
      (exchange, args) => {
        if (!hang) return exchange(...args);
        hang = false;
        void exchange(...args);
        return new Promise(() => {});
      },
      base.ACCOUNT_LIMITER,
    );
    void executeCapability(
      probe,
      { q: "lost-request" },
      { env: stuck, waitUntil: () => {}, accountId: a.accountId, plan: "enterprise", surface: "v1", client },
    );
    // Once its message is the one in flight, the next request comes.
    await settle(() => !hang);
    const after = await run("hit-2");
    expect(await billedOf(after)).toBe(true);
    await w.settled();
    await client.flush(env as Env, a.accountId);
    // Two found answers charged once each; the empty one refunded; the lost request's reservation held, not charged.
    expect((await balance(a.accountId, "enterprise", "search")).used).toBe(2);
    expect((await balance(a.accountId, "enterprise", "search")).available).toBe(500_000 - 2 - 1);
  });

  it("an extra cost the balance cannot fully cover is charged what it covers, never beyond the balance", async () => {
    const a = await createAccount({ plan: "pro" });
    const limiter = stubOf(a.accountId);
    await setUsed(a.accountId, "phone", 1_000 - 50);
    const billing = {
      accountId: a.accountId,
      capability: "domain-search",
      source: "api" as const,
      requests: [{ fingerprint: "partial-extra", cost: { search: 1 } }],
    };
    // A domain search with enrich_mobile finds 100 phones; 50 phone credits are left.
    const admitted = await limiter.admit({ key: "partial-extra", plan: "pro", group: null, cost: {}, billing });
    if (!admitted.admitted) throw new Error("not admitted");
    const outcome = (
      await limiter.exchange({
        plan: "pro",
        settlements: [
          { reservationIds: admitted.reservationIds, found: true, adjust: { phone: 100 }, billed: ["partial-extra"] },
        ],
      })
    ).settlements[0]!;
    expect(outcome.charged).toEqual({ search: 1, phone: 50 });
    expect(await balance(a.accountId, "pro", "phone")).toMatchObject({ used: 1_000, available: 0 });
  });

  it("a message sent twice is decided the same: a refusal and an unbilled late charge are remembered", async () => {
    const a = await createAccount({ plan: "free" }); // 25 search credits
    const limiter = stubOf(a.accountId);
    await setUsed(a.accountId, "search", 25);
    const admission = { key: "sent-twice", plan: "free", group: null, cost: { search: 1 } };
    const charge = {
      key: "charged-twice",
      lease: null,
      accountId: a.accountId,
      capability: "domain-search",
      source: "api" as const,
      fingerprint: "charged-twice",
      cost: { search: 1 },
    };
    const send = () => limiter.exchange({ plan: "free", admissions: [admission], charges: [charge] });
    const first = await send();
    expect(first.admissions[0]).toMatchObject({ admitted: false, reason: "credits" });
    expect(first.charges[0]).toEqual({ billed: false, at: null });
    // A pack arrives before the same message, sent again (its first reply was lost), reaches the limiter.
    await limiter.grantPack(10);
    const again = await send();
    expect(again.admissions[0]).toMatchObject({ admitted: false, reason: "credits" });
    expect(again.charges[0]).toEqual({ billed: false, at: null });
    expect(await balance(a.accountId, "free", "search")).toMatchObject({ available: 10 });
  });

  it("an unbilled late charge is remembered after others were billed, and after its limiter restarts", async () => {
    const a = await createAccount({ plan: "free" }); // 25 search credits
    const limiter = stubOf(a.accountId);
    const charge = (key: string) => ({
      key,
      lease: null,
      accountId: a.accountId,
      capability: "domain-search",
      source: "api" as const,
      fingerprint: key,
      cost: { search: 1 },
    });
    const send = (key: string) => limiter.exchange({ plan: "free", charges: [charge(key)] });
    // Charges billed before any refusal: the limiter holds none yet.
    expect((await send("billed-first")).charges[0]).toMatchObject({ billed: true });
    await setUsed(a.accountId, "search", 25);
    expect((await send("refused-late")).charges[0]).toEqual({ billed: false, at: null });
    await limiter.grantPack(10);
    // Sent again in the same object, then in a new one (the limiter evicted meanwhile).
    expect((await send("refused-late")).charges[0]).toEqual({ billed: false, at: null });
    await evictDurableObject(limiter);
    expect((await send("refused-late")).charges[0]).toEqual({ billed: false, at: null });
    expect(await balance(a.accountId, "free", "search")).toMatchObject({ available: 10 });
  });

  describe("a bulk chunk sent again after its lease", () => {
    const EMAILS = ["ann@mailinator.com", "bob@mailinator.com", "cid@mailinator.com", "dee@mailinator.com"];

    /** A running verifier job whose chunk the test delivers itself (its queue loses what it is sent). */
    async function runningJob(account: TestAccount) {
      const id = await createdId(
        await createJob(account, "verifier", { name: "Sent twice", data: [["email"], ...EMAILS.map((e) => [e])] }),
      );
      await launchLosingMessages(account, id);
      return id;
    }

    async function rowsOf(jobId: number) {
      return runInDurableObject(jobStub(env, jobId), (_i: BulkJob, state) =>
        state.storage.sql
          .exec<{ outcome: string; c_verify: number }>("SELECT outcome, c_verify FROM rows ORDER BY idx")
          .toArray(),
      );
    }

    const tokenOf = (jobId: number) =>
      runInDurableObject(
        jobStub(env, jobId),
        (_i: BulkJob, state) =>
          state.storage.sql.exec<{ token?: number }>("SELECT * FROM claims WHERE chunk = 0").toArray()[0]?.token ?? 0,
      );

    for (const order of [
      "the later delivery records first",
      "the earlier delivery, fenced off, records first",
    ] as const) {
      it(`bills its found rows exactly once when ${order}`, async () => {
        const account = await createAccount({ plan: "pro" });
        const id = await runningJob(account);
        const deliver = (e: Env) =>
          processChunk(
            e,
            createExecutionContext(),
            { jobId: id, chunk: 0, run: 1 },
            async () => "pro",
            batchMemo(),
            new LimiterClient(),
          );
        const [slowFirst, slowSecond] = [slowRows(), slowRows()];
        // The first delivery is admitted and starts its rows, then stalls past its lease: the chunk is sent again.
        const first = deliver(slowFirst.env);
        await settle(async () => (await balance(account.accountId, "pro", "verification")).available < 20_000, {
          timeout: 5_000,
        });
        const tokenBefore = await tokenOf(id);
        const second = deliver(slowSecond.env);
        await settle(async () => (await tokenOf(id)) > tokenBefore, { timeout: 5_000 });
        const [records, then] =
          order === "the later delivery records first" ? [slowSecond, slowFirst] : [slowFirst, slowSecond];
        records.open();
        await (records === slowFirst ? first : second);
        then.open();
        await Promise.all([first, second]);
        const rows = await rowsOf(id);
        expect(rows.map((r) => r.outcome)).toEqual(["found", "found", "found", "found"]);
        expect(rows.map((r) => r.c_verify)).toEqual([1, 1, 1, 1]);
        await settle(async () => (await balance(account.accountId, "pro", "verification")).used === 4, {
          timeout: 5_000,
        });
        expect(await balance(account.accountId, "pro", "verification")).toMatchObject({
          used: 4,
          available: 20_000 - 4,
        });
      });
    }

    it("keeps the reservation a dead delivery's billing needs when a stale delivery is told to stop", async () => {
      const account = await createAccount({ plan: "pro" });
      const id = await runningJob(account);
      const client = new LimiterClient();
      const deliver = (e: Env, c: LimiterClient) =>
        processChunk(e, createExecutionContext(), { jobId: id, chunk: 0, run: 1 }, async () => "pro", batchMemo(), c);
      // A stale delivery is admitted and stalls on its rows.
      const slow = slowRows();
      const stale = deliver(slow.env, client);
      await settle(async () => (await balance(account.accountId, "pro", "verification")).available < 20_000, {
        timeout: 5_000,
      });
      // The chunk is sent again: this copy shares the reservation (one key), records its rows, and dies
      // before its billing reaches the limiter.
      const limiters = env.ACCOUNT_LIMITER;
      const dying = {
        ...(env as Env),
        ACCOUNT_LIMITER: {
          idFromName: (name: string) => limiters.idFromName(name),
          get: (oid: DurableObjectId) => {
            const stub = limiters.get(oid) as unknown as {
              exchange(m: { settlements?: { parts?: unknown }[] }): Promise<unknown>;
            };
            return {
              exchange: (m: { settlements?: { parts?: unknown }[] }) =>
                m.settlements?.some((s) => s.parts) ? new Promise(() => {}) : stub.exchange(m),
            };
          },
        },
      } as unknown as Env;
      void deliver(dying, new LimiterClient({ drainBudgetMs: 50 })).catch(() => {});
      const owed = () =>
        runInDurableObject(
          jobStub(env, id),
          (_i: BulkJob, state) => state.storage.sql.exec("SELECT 1 FROM billing").toArray().length,
        );
      await settle(async () => (await owed()) > 0, { timeout: 5_000 });
      // A third copy finds every row done and completes the job; then the stale one is told to stop.
      await deliver(env as Env, client);
      slow.open();
      await stale;
      await client.flush(env as Env, account.accountId);
      // The job sends the dead delivery's billing itself.
      await runInDurableObject(jobStub(env, id), async (_i: BulkJob, state) =>
        state.storage.sql.exec("UPDATE billing SET at = 0"),
      );
      await runDurableObjectAlarm(jobStub(env, id));
      expect(await owed()).toBe(0);
      expect((await rowsOf(id)).map((r) => r.c_verify)).toEqual([1, 1, 1, 1]);
      expect(await balance(account.accountId, "pro", "verification")).toMatchObject({ used: 4, available: 20_000 - 4 });
    });
  });
});
