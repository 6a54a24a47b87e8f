import { createExecutionContext, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { processChunk } from "../../src/bulk/consumer.js";
import type { BulkJob } from "../../src/bulk/job-object.js";
import { jobStub } from "../../src/bulk/jobs.js";
import { executeCapability } from "../../src/capabilities/core/execute.js";
import { batchMemo } from "../../src/engine/memo.js";
import type { Env } from "../../src/env.js";
import { type AccountLimiter, RESERVATION_TTL_MS } from "../../src/limits/account-limiter.js";
import type { AccountLine } from "../../src/limits/account-line.js";
import { LimiterClient } from "../../src/limits/limiter-client.js";
import type { LimiterMessage } from "../../src/limits/limiter-messages.js";
import { createdId, createJob, launchLosingMessages } from "../bulk/support.js";
import { createAccount, type TestAccount } from "../support/accounts.js";
import { aroundExchange, billedOf, collect, probeCapability } from "../support/limiter.js";
import { eventually, settle } from "../support/settle.js";
import { slowLimiters, slowRows, virtualTime, withChunkClaim } from "../support/slow-time.js";

// Money where things are merely slow (a round trip, a call, a chunk, an outage that lasts): each
// test plays one slowness on virtual time and checks that an answer given is billed.

const probe = probeCapability("slow-probe", "search", async () => true);
let time: ReturnType<typeof virtualTime> | undefined;
const MINUTE = 60_000;
const limiterOf = (accountId: number) =>
  env.ACCOUNT_LIMITER.get(env.ACCOUNT_LIMITER.idFromName(`account:${accountId}`)) as DurableObjectStub<AccountLimiter>;
const verification = async (accountId: number, plan: string) =>
  (await limiterOf(accountId).balances(plan)).verification;
/**
 * Resolves once every reservation the account's limiter holds was made or kept alive at `since` or
 * later (on the limiter's clock): a renewal, or an admission asked again, has reached it.
 */
const keptAliveSince = (accountId: number, since: number) =>
  eventually(async () => {
    const oldest = await runInDurableObject(
      limiterOf(accountId),
      (limiter: AccountLimiter) => limiter.reservations.firstExpiry() - RESERVATION_TTL_MS,
    );
    expect(oldest, "the chunk's reservation is kept alive while its rows run").toBeGreaterThanOrEqual(since);
  });

const EMAILS = ["ann@mailinator.com", "bob@mailinator.com", "cid@mailinator.com", "dee@mailinator.com"];
/** A running verifier job of four rows whose chunk the test delivers itself. */
async function runningJob(account: TestAccount) {
  const id = await createdId(
    await createJob(account, "verifier", { name: "Slow", data: [["email"], ...EMAILS.map((e) => [e])] }),
  );
  await launchLosingMessages(account, id);
  return id;
}
const creditsOfRows = (jobId: number) =>
  runInDurableObject(jobStub(env, jobId), (_i: BulkJob, state) =>
    state.storage.sql.exec<{ c_verify: number }>("SELECT c_verify FROM rows ORDER BY idx").toArray(),
  ).then((rows) => rows.map((r) => r.c_verify));
const deliver = (e: Env, jobId: number, client: LimiterClient) =>
  processChunk(e, createExecutionContext(), { jobId, chunk: 0, run: 1 }, async () => "pro", batchMemo(), client);
afterEach(() => {
  time?.restore();
  time = undefined;
});

describe("money on slow paths", () => {
  it("an admission whose own round trip outlasts the orphan time is billed, not released as an orphan", async () => {
    const a = await createAccount({ plan: "enterprise" }); // admitted through its limiter first (no rate share)
    time = virtualTime();
    const clock = time;
    // The admission's reply comes back 11 s after it was sent (an overloaded limiter).
    const slow = slowLimiters(
      env as Env,
      (ms) => clock.advance(ms),
      (_m, [msg]) => ((msg as LimiterMessage).admissions?.length ? 11_000 : 0),
    );
    const w = collect();
    const execution = await executeCapability(
      probe,
      { q: "slow-admission" },
      {
        env: slow,
        waitUntil: w.waitUntil,
        accountId: a.accountId,
        plan: "enterprise",
        surface: "v1",
        client: new LimiterClient({ rateShareUnits: 0 }),
      },
    );
    expect(execution.response.status).toBe(200);
    expect(await billedOf(execution)).toBe(true);
    await w.settled();
  });

  it("an admission carried by another request's round trip, its waiter unseen past the orphan time, is billed", async () => {
    const a = await createAccount({ plan: "enterprise" }); // admitted through its limiter first (no rate share)
    let offset = 0;
    const isolate = new LimiterClient({ rateShareUnits: 0, now: () => Date.now() + offset });
    const queued = () => (isolate as unknown as { lines: Map<number, AccountLine> }).lines.get(a.accountId)?.admissions;
    let sends = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const e = aroundExchange(env as Env, async (exchange, args) => {
      const n = ++sends;
      if (n === 1) await held; // two more calls queue behind the first one's round trip
      const reply = await exchange(...args);
      // The message carrying both comes back after the orphan time on the isolate's clock, with no
      // poll in between (a stalled isolate): one of the two sent it, the other only waited.
      if (n === 2) offset += isolate.options.orphanMs + 1;
      return reply;
    });
    const w = collect();
    const run = (q: string) =>
      executeCapability(
        probe,
        { q },
        { env: e, waitUntil: w.waitUntil, accountId: a.accountId, plan: "enterprise", surface: "v1", client: isolate },
      );
    const first = run("first");
    await settle(() => sends === 1);
    const later = [run("second"), run("third")];
    await settle(() => queued()?.length === 2);
    release();
    for (const execution of await Promise.all([first, ...later])) {
      expect(execution.response.status).toBe(200);
      expect(await billedOf(execution)).toBe(true);
    }
    await w.settled();
    await isolate.flush(env as Env, a.accountId);
    // Three calls charged once each: what went back was not charged, the admission made again was.
    expect((await limiterOf(a.accountId).balances("enterprise")).search).toMatchObject({ used: 3 });
  });

  it("a credit pack's Idempotency-Key grants it once for at least 30 days, whatever the sweeps", async () => {
    const a = await createAccount({ plan: "free" });
    const stub = env.ACCOUNT_LIMITER.get(
      env.ACCOUNT_LIMITER.idFromName(`account:${a.accountId}`),
    ) as DurableObjectStub<AccountLimiter>;
    time = virtualTime();
    expect(await stub.grantPack(1_000, "operator:order-7")).toMatchObject({ remaining: 1_000 });
    // The operator retries the same order later: after the admission keys' sweep, and after 29 days.
    for (const later of [11 * 60_000, 29 * 86_400_000]) {
      time.advance(later);
      // Admissions decided meanwhile (each remembers its key and arms the sweep), then the sweep.
      await stub.admit({ key: `later-${later}`, plan: "free", group: "search", cost: {} });
      time.advance(11 * 60_000);
      await runDurableObjectAlarm(stub);
      expect(await stub.grantPack(1_000, "operator:order-7")).toMatchObject({ remaining: 1_000 });
    }
    expect(await stub.grantPack(1_000, "operator:order-8")).toMatchObject({ remaining: 2_000 });
  });

  it("a bulk chunk whose rows run past the reservation's age keeps it alive from the chunk's start", async () => {
    const account = await createAccount({ plan: "pro" });
    const id = await runningJob(account);
    time = virtualTime();
    // Renewals every 100 ms of real time; the rows run 12 minutes of virtual time.
    const slow = slowRows(withChunkClaim(env as Env, 300));
    const delivery = deliver(slow.env, id, new LimiterClient());
    await settle(async () => (await verification(account.accountId, "pro")).available < 20_000, {
      timeout: 5_000,
    });
    for (let i = 0; i < 3; i++) {
      time.advance(4 * MINUTE);
      await keptAliveSince(account.accountId, Date.now());
    }
    await runDurableObjectAlarm(limiterOf(account.accountId)); // the sweep of reservations left 10 minutes
    slow.open();
    await delivery;
    expect(await creditsOfRows(id)).toEqual([1, 1, 1, 1]);
    expect(await verification(account.accountId, "pro")).toMatchObject({ used: 4, available: 20_000 - 4 });
  });

  it("a bulk chunk delivered again refreshes the age of the reservation it shares", async () => {
    const account = await createAccount({ plan: "pro" });
    const id = await runningJob(account);
    time = virtualTime();
    // The first delivery is admitted and stalls (no renewal comes within the test: its lease is minutes).
    const first = slowRows();
    const stalled = deliver(first.env, id, new LimiterClient());
    await settle(async () => (await verification(account.accountId, "pro")).available < 20_000, {
      timeout: 5_000,
    });
    // 9 minutes later its lease is long over: the chunk is delivered again, under the same admission key.
    time.advance(9 * MINUTE);
    const second = slowRows();
    const again = deliver(second.env, id, new LimiterClient());
    await settle(
      async () =>
        (
          await runInDurableObject(jobStub(env, id), (_i: BulkJob, state) =>
            state.storage.sql.exec<{ token: number }>("SELECT token FROM claims WHERE chunk = 0").toArray(),
          )
        )[0]!.token > 1,
      { timeout: 5_000 },
    );
    // Its rows have started: its admission, asked again, was decided.
    await settle(() => second.waiting() > 0);
    // 11 minutes after the first admission, 2 after the second: the sweep runs.
    time.advance(2 * MINUTE);
    await runDurableObjectAlarm(limiterOf(account.accountId));
    second.open();
    await again;
    first.open();
    await stalled;
    expect(await creditsOfRows(id)).toEqual([1, 1, 1, 1]);
    expect(await verification(account.accountId, "pro")).toMatchObject({ used: 4, available: 20_000 - 4 });
  });

  it("a lease-paid call slower than the lease's quiet life is charged from its lease, not lost", async () => {
    const a = await createAccount({ plan: "pro-plus" }); // calls paid from the isolate's lease, charged late
    await runInDurableObject(limiterOf(a.accountId), (instance: AccountLimiter) => {
      const book = (
        instance as unknown as { credits: { current(now: number): { used: { search: number } }; dirty: boolean } }
      ).credits;
      book.current(Date.now()).used.search = 25_000 - 6;
      book.dirty = true;
    });
    time = virtualTime();
    const w = collect();
    const inv = (client: LimiterClient, chargeLater: boolean) => ({
      env: env as Env,
      waitUntil: w.waitUntil,
      accountId: a.accountId,
      plan: "pro-plus",
      surface: "v1" as const,
      chargeLater,
      client,
    });
    const isolate = new LimiterClient({ leaseCredits: 5, leaseFloor: 0, countWaitMs: 5 });
    // The first call is admitted first and draws the lease (5 credits: all that is left).
    expect(await billedOf(await executeCapability(probe, { q: "draws-the-lease" }, inv(isolate, true)))).toBe(true);
    // The next is paid from the lease and runs 40 seconds.
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    let running = false;
    const slowProbe = probeCapability("slow-lease-probe", "search", async () => {
      running = true;
      await held;
      return true;
    });
    const slowCall = executeCapability(slowProbe, { q: "forty-seconds" }, inv(isolate, true));
    // Paid from the lease and running before the 40 seconds pass.
    await settle(() => running);
    time.advance(40_000);
    await runDurableObjectAlarm(limiterOf(a.accountId));
    // Meanwhile another isolate asks for whatever is available.
    const other = new LimiterClient();
    for (let i = 0; i < 5; i++) await executeCapability(probe, { q: `other-${i}` }, inv(other, false));
    answer();
    const slow = await slowCall;
    expect(slow.response.status).toBe(200);
    expect(await billedOf(slow)).toBe(true);
    await w.settled();
    await isolate.flush(env as Env, a.accountId);
    expect((await limiterOf(a.accountId).balances("pro-plus")).search.used).toBeLessThanOrEqual(25_000);
  });

  it("a settlement stranded by a limiter outage longer than the drain budget is sent before the sweep", async () => {
    const a = await createAccount({ plan: "enterprise" }); // admitted through its limiter first (no rate share)
    const b = await createAccount({ plan: "enterprise" });
    time = virtualTime();
    const clock = time;
    let down = false;
    // While the limiter is down, every round trip fails after 5 s.
    const base = env as Env;
    const flaky = {
      ...base,
      ACCOUNT_LIMITER: {
        idFromName: (name: string) => base.ACCOUNT_LIMITER.idFromName(name),
        get: (oid: DurableObjectId) => {
          const stub = base.ACCOUNT_LIMITER.get(oid) as unknown as Record<
            string,
            (...x: unknown[]) => Promise<unknown>
          >;
          return new Proxy(stub, {
            get: (target, prop) =>
              prop === "exchange"
                ? async (...x: unknown[]) => {
                    if (!down) return target.exchange!(...x);
                    clock.advance(5_000);
                    throw new Error("limiter unreachable (outage)");
                  }
                : target[prop as string],
          });
        },
      },
    } as unknown as Env;
    const isolate = new LimiterClient({ retryMs: 1, rateShareUnits: 0 });
    const w = collect();
    const run = (accountId: number, q: string) =>
      executeCapability(
        probe,
        { q },
        { env: flaky, waitUntil: w.waitUntil, accountId, plan: "enterprise", surface: "v1", client: isolate },
      );
    const answered = await run(a.accountId, "before-the-outage");
    expect(answered.response.status).toBe(200);
    // The limiter goes down as the answer is reported: its settlement's drain spends its budget.
    down = true;
    const billed = billedOf(answered);
    await w.settled();
    down = false;
    // The isolate's next request is another account's: the stranded settlement goes with it.
    await billedOf(await run(b.accountId, "after-the-outage"));
    await w.settled();
    // Ten minutes later the sweep runs.
    time.advance(11 * MINUTE);
    await runDurableObjectAlarm(limiterOf(a.accountId));
    await isolate.flush(env as Env, a.accountId);
    expect(await billed).toBe(true);
  });
});
