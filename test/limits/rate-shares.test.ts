import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Execution, executeCapability } from "../../src/capabilities/core/execute.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import type { AccountLine } from "../../src/limits/account-line.js";
import { limiterFor } from "../../src/limits/admission.js";
import { type ClientOptions, LimiterClient } from "../../src/limits/limiter-client.js";
import type { RateShareRequest } from "../../src/limits/limiter-messages.js";
import type { GroupState } from "../../src/limits/rate-counters.js";
import { createAccount } from "../support/accounts.js";
import { billedOf, collect, limiterClock, probeCapability, recordingEnv } from "../support/limiter.js";

/** A capability double in the search group: enterprise's only limit there is 100,000 requests a day. */
const probe = probeCapability("share-probe", "search", () => true);
const DAILY = 100_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const stubOf = (accountId: number) => limiterFor(env, accountId) as unknown as DurableObjectStub<AccountLimiter>;

/** Small shares, so a day of a few dozen requests is shared and refused within a test. */
const SHARES: Partial<ClientOptions> = { rateShareUnits: 6, rateShareFloor: 2, retryMs: 2, settleWaitMs: 1 };

/** An enterprise account whose search day has only `room` requests left (on the limiter's clock at `now`). */
async function accountWithRoom(room: number, now = Date.now()) {
  const a = await createAccount({ plan: "enterprise" });
  const state: GroupState = {
    second: { count: 0, last: 0 },
    minute: { count: 0, last: 0 },
    day: utcDay(now),
    daily: DAILY - room,
  };
  await runInDurableObject(stubOf(a.accountId), (instance: AccountLimiter, s) => {
    instance.counters.load("search", state);
    s.storage.kv.put("g:search", state);
  });
  return a;
}

/** The search day's count at the limiter (shares counted as used when granted). */
const counted = async (accountId: number) =>
  (await stubOf(accountId).status("enterprise", ["search"])).groups.search!.used.daily;

/** One isolate: its client, an env recording its round trips, and a way to make calls from it. */
/** An isolate whose first call took its share, and whose second was answered from it without a round trip. */
async function isolateAnsweringFromItsShare(accountId: number) {
  const iso = isolate(accountId);
  await iso.run();
  await iso.settled();
  iso.calls.length = 0;
  expect((await iso.run()).response.status).toBe(200);
  expect(iso.calls).toEqual([]);
  await iso.settled();
  return iso;
}

function isolate(accountId: number, options: Partial<ClientOptions> = SHARES) {
  let offset = 0;
  const client = new LimiterClient({ ...options, now: () => Date.now() + offset });
  const recorded = recordingEnv(env as Env);
  const w = collect();
  const run = (q = crypto.randomUUID()): Promise<Execution> =>
    executeCapability(
      probe,
      { q },
      {
        env: recorded.env,
        waitUntil: w.waitUntil,
        accountId,
        plan: "enterprise",
        surface: "v1",
        chargeLater: true,
        client,
      },
    );
  return {
    client,
    calls: recorded.calls,
    run,
    settled: () => w.settled(),
    advance: (ms: number) => {
      offset += ms;
    },
    share: () => client.rateShareOf(accountId, "enterprise", "search", client.now()),
  };
}

describe("rate shares: an isolate answers a day-limited call from its share of the day, never past the limit", () => {
  it("answers from its share without a round trip once it holds one, and counts the share used at the limiter", async () => {
    const a = await accountWithRoom(50);
    const iso = isolate(a.accountId);
    // The first call is decided at the limiter; its round trip asks for the share (and the credit lease).
    expect((await iso.run()).response.status).toBe(200);
    await iso.settled();
    expect(await counted(a.accountId)).toBe(DAILY - 50 + 1 + 6);
    iso.calls.length = 0;
    const second = await iso.run();
    expect(second.response.status).toBe(200);
    expect(iso.calls).toEqual([]);
    // The headers count what this isolate may still answer: the day's last 43 and its 5 units left.
    expect(second.response.headers.get("x-daily-request-left")).toBe(String(50 - 1 - 6 + 5));
    expect(await billedOf(second)).toBe(true);
    await iso.settled();
    // Charged late, counted once: the unit was counted when the share was granted.
    expect(await counted(a.accountId)).toBe(DAILY - 50 + 1 + 6);
  });

  it("admits a repeat it knows from its share too, without a round trip (nothing to pay, one unit of the day)", async () => {
    const a = await accountWithRoom(50);
    const iso = isolate(a.accountId);
    const q = crypto.randomUUID();
    expect(await billedOf(await iso.run(q))).toBe(true);
    await iso.settled();
    iso.calls.length = 0;
    const again = await iso.run(q);
    expect(again.response.status).toBe(200);
    expect(await billedOf(again)).toBe(false);
    await iso.settled();
    expect(iso.calls).toEqual([]);
    expect(again.response.headers.get("x-daily-request-left")).toBe(String(50 - 1 - 6 + 5));
    expect(await counted(a.accountId)).toBe(DAILY - 50 + 1 + 6);
  });

  it("shares the day of an account whose credit pack removes its limits too (every call answered without a round trip)", async () => {
    // The hot bench funds its accounts with such a pack: an isolate asking for a share must not be refused for it.
    const a = await accountWithRoom(50);
    await stubOf(a.accountId).grantPack(60_000);
    await isolateAnsweringFromItsShare(a.accountId);
    expect(await counted(a.accountId)).toBe(DAILY - 50 + 1 + 6);
  });

  it("never admits past the day's limit across isolates holding shares, one of which dies holding its own", async () => {
    const room = 30;
    const a = await accountWithRoom(room);
    const [x, y, dead] = [isolate(a.accountId), isolate(a.accountId), isolate(a.accountId)];
    // The one to die takes its share, answers one call from it, and is never heard from again.
    await dead.run();
    await dead.settled();
    expect((await dead.run()).response.status).toBe(200);
    let answered = 2;
    let refused = 0;
    for (let wave = 0; wave < 12; wave++) {
      const statuses = await Promise.all(
        [x.run(), y.run(), x.run(), y.run()].map(async (e) => (await e).response.status),
      );
      answered += statuses.filter((s) => s === 200).length;
      refused += statuses.filter((s) => s === 429).length;
      await Promise.all([x.settled(), y.settled()]);
    }
    expect(answered + refused).toBe(2 + 48);
    expect(answered).toBeLessThanOrEqual(room);
    // Under-served by what the dead isolate did not spend of its share, at most one share.
    expect(answered).toBeGreaterThanOrEqual(room - (SHARES.rateShareUnits ?? 0));
    expect(await counted(a.accountId)).toBe(DAILY);
  });

  it("gives back what an idle share did not spend, so the day counts only the calls answered", async () => {
    const a = await accountWithRoom(1_000);
    const iso = isolate(a.accountId);
    await iso.run();
    await iso.settled();
    expect(iso.calls).toContain("exchange");
    iso.calls.length = 0;
    await iso.run();
    await iso.run();
    expect(iso.calls).toEqual([]);
    await iso.settled();
    expect(await counted(a.accountId)).toBe(DAILY - 1_000 + 1 + 6);
    // Unused past rateShareIdleMs, it goes back with the isolate's next round trip.
    const given = iso.share()!;
    iso.advance(iso.client.options.rateShareIdleMs);
    await iso.client.flush(env as Env, a.accountId);
    expect(await counted(a.accountId)).toBe(DAILY - 1_000 + 3);
    expect(given.ended).toBe(true);
    // Not refused, only idle: the next call may ask for a new one at once.
    expect(iso.share()).not.toBe(given);
  });

  it("applies a top-up and a give-back once each when they are sent twice, and never reopens a share given back", async () => {
    const a = await accountWithRoom(100);
    const stub = stubOf(a.accountId);
    const send = (share: RateShareRequest) => stub.exchange({ plan: "enterprise", rateShares: [share] });
    const topUp: RateShareRequest = { id: "share-1", group: "search", seq: 1, want: 10, floor: 0 };
    const first = (await send(topUp)).rateShares![0]!;
    expect(first).toMatchObject({ open: true, units: 10, left: 90, refused: false });
    expect((await send(topUp)).rateShares![0]).toMatchObject({ open: true, units: 10 });
    expect(await counted(a.accountId)).toBe(DAILY - 90);
    const more = { ...topUp, seq: 2, want: 5 };
    await send(more);
    await send(more);
    expect(await counted(a.accountId)).toBe(DAILY - 85);
    const giveBack: RateShareRequest = { id: "share-1", group: "search", seq: 3, close: true, spent: 4 };
    expect((await send(giveBack)).rateShares![0]).toMatchObject({ open: false, units: 15 });
    expect(await send(giveBack)).toMatchObject({ rateShares: [{ open: false }] });
    expect(await counted(a.accountId)).toBe(DAILY - 100 + 4);
    // Its first top-up arriving late (a copy still in flight) finds it closed.
    expect((await send(topUp)).rateShares![0]).toMatchObject({ open: false });
    expect(await counted(a.accountId)).toBe(DAILY - 100 + 4);
  });

  it("grants nothing for a late copy of a share's first top-up arriving the next day", async () => {
    const midnight = Date.UTC(2027, 6, 3);
    const a = await accountWithRoom(1_000, midnight - 1_000);
    const stub = stubOf(a.accountId);
    const clock = await limiterClock(stub, midnight - 1_000);
    const first: RateShareRequest = { id: "late-copy", group: "search", seq: 1, want: 10, floor: 0 };
    await stub.exchange({ plan: "enterprise", rateShares: [first] });
    clock.at(midnight + 1_000);
    // Another isolate's share is granted in the new day (old days' shares are pruned then).
    await stub.exchange({ plan: "enterprise", rateShares: [{ ...first, id: "next-day" }] });
    expect(await counted(a.accountId)).toBe(10);
    expect((await stub.exchange({ plan: "enterprise", rateShares: [first] })).rateShares![0]).toMatchObject({
      open: false,
    });
    expect(await counted(a.accountId)).toBe(10);
    clock.at(null);
  });

  it("grants nothing that would leave fewer than the floor of the day, nor in a group with a per-second limit", async () => {
    const a = await accountWithRoom(12);
    const stub = stubOf(a.accountId);
    const ask = (id: string, plan: string, group: "search" | "phone") =>
      stub.exchange({ plan, rateShares: [{ id, group, seq: 1, want: 10, floor: 3 }] });
    expect((await ask("near-the-limit", "enterprise", "search")).rateShares![0]).toMatchObject({
      open: false,
      refused: true,
    });
    expect(await counted(a.accountId)).toBe(DAILY - 12);
    const pro = await createAccount({ plan: "pro" });
    const proStub = stubOf(pro.accountId);
    expect(
      (await proStub.exchange({ plan: "pro", rateShares: [{ id: "rps", group: "phone", seq: 1, want: 1, floor: 0 }] }))
        .rateShares![0],
    ).toMatchObject({ open: false, refused: true });
    // An isolate never takes one on such a plan: every call of the group is decided at the limiter.
    const client = new LimiterClient(SHARES);
    const recorded = recordingEnv(env as Env);
    const w = collect();
    for (let i = 0; i < 3; i++) {
      await executeCapability(
        probe,
        { q: crypto.randomUUID() },
        {
          env: recorded.env,
          waitUntil: w.waitUntil,
          accountId: pro.accountId,
          plan: "pro",
          surface: "v1",
          chargeLater: true,
          client,
        },
      );
      await w.settled();
    }
    expect((await proStub.status("pro", ["search"])).groups.search!.used.daily).toBe(3);
    const lines = (client as unknown as { lines: Map<number, AccountLine> }).lines;
    expect(lines.get(pro.accountId)?.rateShares.size ?? 0).toBe(0);
  });

  it("stops spending a share at its day's end on the isolate's clock; the next call counts in the new day", async () => {
    const midnight = Date.UTC(2027, 4, 12);
    const a = await accountWithRoom(1_000, midnight - 5_000);
    const clock = await limiterClock(stubOf(a.accountId), midnight - 5_000);
    const iso = await isolateAnsweringFromItsShare(a.accountId);
    const old = iso.share()!;
    // 5 s pass on every clock: the day the share was counted in is over.
    clock.at(midnight + 10);
    iso.advance(5_000);
    iso.calls.length = 0;
    expect((await iso.run()).response.status).toBe(200);
    expect(iso.calls[0]).toBe("exchange");
    await iso.settled();
    // The new day counts the call decided at the limiter, and a share given back from the old day changes nothing in it.
    expect(await counted(a.accountId)).toBe(1);
    // The old day's share given back now (5 of its 6 units unspent) gives nothing to the new day.
    await stubOf(a.accountId).exchange({
      plan: "enterprise",
      rateShares: [{ id: old.id, group: "search", seq: 99, close: true, spent: 1 }],
    });
    expect(await counted(a.accountId)).toBe(1);
    clock.at(null);
  });
});
