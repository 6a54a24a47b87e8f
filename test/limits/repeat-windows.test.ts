import { createExecutionContext, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { executeCapability } from "../../src/capabilities/core/execute.js";
import { executeBatch } from "../../src/capabilities/core/execute-batch.js";
import { db } from "../../src/db/client.js";
import { billedRequests, usageDays } from "../../src/db/schema-contract.js";
import { batchMemo } from "../../src/engine/memo.js";
import type { Env } from "../../src/env.js";
import { type AccountLimiter, RESERVATION_TTL_MS } from "../../src/limits/account-limiter.js";
import { limiterFor } from "../../src/limits/admission.js";
import { ADMISSION_KEY_TTL_MS } from "../../src/limits/admission-keys.js";
import { REPEAT_WINDOW_MS, requestFingerprint } from "../../src/limits/repeat-billing.js";
import { copyCharges } from "../../src/limits/usage-copy.js";
import { call, createAccount, json } from "../support/accounts.js";
import { billedOf, collect, limiterClock, probeCapability, recordingEnv } from "../support/limiter.js";
import { settle } from "../support/settle.js";

/** A capability double billed one phone credit when found; it waits for `release` so calls overlap. */
let release: Promise<void> = Promise.resolve();
const found: Record<string, boolean> = {};
/** Per request, the answers its next calls give (found or not), in the order they start. */
const answers: Record<string, boolean[]> = {};
/** Per request, how many calls have reached the capability (admitted by the limiter, now running). */
const started: Record<string, number> = {};
const probe = probeCapability("window-probe", "phone", async (q) => {
  started[q] = (started[q] ?? 0) + 1;
  const mine = answers[q]?.shift();
  await release;
  return mine ?? found[q] ?? true;
});
/**
 * Resolves once `count` calls of request `q` are running: admitted and inside the capability. A
 * fixed pause (20-50 ms) stood for this and was too short on a busy machine: the limiter had not
 * yet seen the first call ("no such table: repeat_windows", its table made on first use).
 */
const running = (q: string, count: number) => settle(() => (started[q] ?? 0) >= count);

const unreachableD1 = new Proxy({} as D1Database, {
  get: () => () => {
    throw new Error("D1 was asked");
  },
});

type Stub = DurableObjectStub<AccountLimiter>;
const stubOf = (accountId: number) => limiterFor(env, accountId) as unknown as Stub;
const phoneUsed = async (accountId: number) => (await limiterFor(env, accountId).balances("scale")).phone.used;

/** The limiter's repeat windows, read from its storage. */
async function windowsOf(accountId: number) {
  return runInDurableObject(stubOf(accountId), async (_instance: AccountLimiter, state) =>
    state.storage.sql
      .exec<{ fingerprint: string; billed_at: number; synced: number }>(
        "SELECT fingerprint, billed_at, synced FROM repeat_windows",
      )
      .toArray(),
  );
}

async function logsOf(headers: Record<string, string>, count: number) {
  let body: any;
  await settle(async () => {
    body = await json(await call("/v1/logs?type=Phone%20Validator&limit=100", { headers }));
    return body.meta.total >= count;
  });
  return body.data as { cost: boolean; uri: string }[];
}

describe("the 30-day repeat rule, decided by the account's limiter", () => {
  it("bills 20 identical requests arriving at the same instant once", async () => {
    const a = await createAccount({ plan: "scale" });
    let open!: () => void;
    release = new Promise((r) => (open = r));
    const { waitUntil, settled } = collect();
    const q = crypto.randomUUID();
    const calls = Array.from({ length: 20 }, () =>
      executeCapability(probe, { q }, { env, waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" }),
    );
    // Every admission is decided before any answer is ready: all 20 are in flight together.
    await running(q, 20);
    open();
    const done = await Promise.all(calls);
    await settled();
    expect(done.map((d) => d.response.status)).toEqual(Array(20).fill(200));
    expect((await Promise.all(done.map(billedOf))).filter(Boolean)).toHaveLength(1);
    expect(await phoneUsed(a.accountId)).toBe(1);
  });

  it("bills 20 identical HTTP requests sent at once once, and logs one of them as charged", async () => {
    const a = await createAccount({ plan: "scale" });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => call("/v1/phone-validator?phone=%2B33612345001", { headers: a.headers })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const logs = await logsOf(a.headers, 20);
    expect(logs.filter((l) => l.cost)).toHaveLength(1);
    await settle(async () => (await phoneUsed(a.accountId)) === 1);
    await new Promise((r) => setTimeout(r, 100)); // nothing else arrives later
    expect(await phoneUsed(a.accountId)).toBe(1);
  });

  it("closes the window of a call that found nothing, so the next identical request is billed", async () => {
    const a = await createAccount({ plan: "scale" });
    const q = crypto.randomUUID();
    found[q] = false;
    const first = collect();
    expect(
      await billedOf(
        await executeCapability(
          probe,
          { q },
          { env, waitUntil: first.waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" },
        ),
      ),
    ).toBe(false);
    await first.settled();
    expect(await windowsOf(a.accountId)).toEqual([]);
    found[q] = true;
    const second = collect();
    expect(
      await billedOf(
        await executeCapability(
          probe,
          { q },
          { env, waitUntil: second.waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" },
        ),
      ),
    ).toBe(true);
    await second.settled();
    expect(await phoneUsed(a.accountId)).toBe(1);
  });

  it("answers a billed call without touching D1: the charge reaches the D1 copy off the request path", async () => {
    const a = await createAccount({ plan: "scale" });
    const q = crypto.randomUUID();
    const { waitUntil, settled } = collect();
    const billed = await executeCapability(
      probe,
      { q },
      { env: { ...(env as Env), DB: unreachableD1 }, waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" },
    );
    expect(await billedOf(billed)).toBe(true);
    await settled();
    await limiterFor(env, a.accountId).syncUsage();
    const fingerprint = await requestFingerprint("window-probe", { q });
    const rows = await db(env.DB).select().from(billedRequests).all();
    expect(rows.filter((r) => r.accountId === a.accountId)).toEqual([expect.objectContaining({ fingerprint })]);
    const usage = (await db(env.DB).select().from(usageDays).all()).filter((r) => r.accountId === a.accountId);
    expect(usage).toEqual([expect.objectContaining({ capability: "window-probe", source: "api", count: 1 })]);
    expect((await windowsOf(a.accountId)).map((w) => w.synced)).toEqual([1]);
  });

  it("counts a charge sent to the D1 copy twice once", async () => {
    const a = await createAccount({ plan: "scale" });
    const billedAt = Date.now();
    const charges = [
      { accountId: a.accountId, fingerprint: "f1", billedAt, capability: "email-finder", source: "api" },
      { accountId: a.accountId, fingerprint: "f2", billedAt, capability: "email-finder", source: "api" },
    ];
    await copyCharges(env.DB, charges);
    await copyCharges(env.DB, charges);
    // The same request billed again after its window closed is a new charge.
    await copyCharges(env.DB, [{ ...charges[0]!, billedAt: billedAt + REPEAT_WINDOW_MS }]);
    const usage = (await db(env.DB).select().from(usageDays).all()).filter((r) => r.accountId === a.accountId);
    expect(usage.reduce((n, r) => n + r.count, 0)).toBe(3);
  });

  it("shows a billed call on /v1/usage at once: the route brings the D1 copy up to date first", async () => {
    const a = await createAccount({ plan: "scale" });
    expect((await call("/v1/phone-validator?phone=%2B33612345002", { headers: a.headers })).status).toBe(200);
    const usage = await json(await call("/v1/usage", { headers: a.headers }));
    expect(usage.total).toMatchObject({ phones: 1, usage: 1, api: 1 });
  });

  it("keeps a charge the D1 copy could not take, and sends it once D1 answers again", async () => {
    const a = await createAccount({ plan: "scale" });
    const { waitUntil, settled } = collect();
    expect(
      await billedOf(
        await executeCapability(
          probe,
          { q: crypto.randomUUID() },
          { env, waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" },
        ),
      ),
    ).toBe(true);
    await settled();
    const stub = stubOf(a.accountId);
    const realEnv = await runInDurableObject(stub, async (instance: AccountLimiter) => {
      const holder = instance as unknown as { env: { DB: D1Database } };
      const saved = holder.env;
      holder.env = { DB: unreachableD1 };
      return saved;
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await windowsOf(a.accountId)).map((w) => w.synced)).toEqual([0]);
    await runInDurableObject(stub, async (instance: AccountLimiter, state) => {
      (instance as unknown as { env: { DB: D1Database } }).env = realEnv;
      // The failed copy is tried again later.
      expect(await state.storage.getAlarm()).not.toBeNull();
    });
    await limiterFor(env, a.accountId).syncUsage();
    expect((await windowsOf(a.accountId)).map((w) => w.synced)).toEqual([1]);
    expect(
      (await db(env.DB).select().from(billedRequests).all()).filter((r) => r.accountId === a.accountId),
    ).toHaveLength(1);
  });

  it("deletes windows 30 days after their billing, so the limiter's storage stays bounded", async () => {
    const a = await createAccount({ plan: "scale" });
    const old = collect();
    // The old call is billed on a limiter whose clock says 30 days ago.
    const clock = await limiterClock(stubOf(a.accountId), Date.now() - REPEAT_WINDOW_MS - 60_000);
    expect(
      await billedOf(
        await executeCapability(
          probe,
          { q: "old" },
          { env, waitUntil: old.waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" },
        ),
      ),
    ).toBe(true);
    await old.settled();
    clock.at(null);
    const recent = collect();
    expect(
      await billedOf(
        await executeCapability(
          probe,
          { q: "recent" },
          { env, waitUntil: recent.waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" },
        ),
      ),
    ).toBe(true);
    await Promise.all([old.settled(), recent.settled()]);
    expect(await windowsOf(a.accountId)).toHaveLength(2);
    expect(await runDurableObjectAlarm(stubOf(a.accountId))).toBe(true);
    const left = await windowsOf(a.accountId);
    expect(left.map((w) => w.fingerprint)).toEqual([await requestFingerprint("window-probe", { q: "recent" })]);
    // The next chore due is forgetting the admission keys; once they are gone, the remaining window's close.
    const alarmOf = () =>
      runInDurableObject(stubOf(a.accountId), (_i: AccountLimiter, state) => state.storage.getAlarm());
    const billedAt = left[0]!.billed_at;
    expect((await alarmOf())! - billedAt).toBeGreaterThanOrEqual(ADMISSION_KEY_TTL_MS);
    expect((await alarmOf())! - billedAt).toBeLessThan(ADMISSION_KEY_TTL_MS + 5_000);
    const later = Date.now() + ADMISSION_KEY_TTL_MS + 60_000;
    clock.at(later);
    expect(await runDurableObjectAlarm(stubOf(a.accountId))).toBe(true);
    // The alarm runs on real time: the window closes (billedAt + 30 days + 1 s on the limiter's clock) that long from now.
    const due = (await alarmOf())! - Date.now();
    expect(Math.abs(due - (billedAt + REPEAT_WINDOW_MS + 1_000 - later))).toBeLessThan(5_000);
    clock.at(null);
  });

  it("bills a bulk chunk through the same windows, in one admission: a single call repeats a row, and a row repeats a single call", async () => {
    const a = await createAccount({ plan: "scale" });
    const [x, y, z2] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const single = collect();
    expect(
      await billedOf(
        await executeCapability(
          probe,
          { q: x },
          { env, waitUntil: single.waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" },
        ),
      ),
    ).toBe(true);
    await single.settled();
    const { env: recorded, calls } = recordingEnv();
    const ctx = createExecutionContext();
    const batch = await executeBatch(probe, [{ q: x }, { q: y }, { q: y }, { q: z2 }], {
      env: recorded,
      waitUntil: (p) => ctx.waitUntil(p),
      accountId: a.accountId,
      plan: "scale",
      memo: batchMemo(),
      concurrency: 4,
      key: crypto.randomUUID(),
    });
    expect(calls).toEqual(["exchange"]);
    expect(batch!.outcomes.map((o) => o?.ok && o.billed)).toEqual([false, true, false, true]);
    expect((await batch!.settle())?.billed).toHaveLength(2);
    expect(await phoneUsed(a.accountId)).toBe(3);
    const again = collect();
    expect(
      await billedOf(
        await executeCapability(
          probe,
          { q: y },
          { env, waitUntil: again.waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" },
        ),
      ),
    ).toBe(false);
    await again.settled();
    expect(await phoneUsed(a.accountId)).toBe(3);
  });
});

describe("a running call's window, held with its reservation", () => {
  /** Starts a billed call of `q` that runs until `open()` is called. */
  function heldCall(accountId: number, q: string) {
    let open!: () => void;
    release = new Promise((r) => (open = r));
    const { waitUntil, settled } = collect();
    const running = executeCapability(probe, { q }, { env, waitUntil, accountId, plan: "scale", surface: "v1" });
    return { running, open, waitUntil, settled };
  }

  it("writes the window only once the call is billed: an identical call running beside it is billed only if charged first", async () => {
    const a = await createAccount({ plan: "scale" });
    const q = crypto.randomUUID();
    const { running: first, open, waitUntil, settled } = heldCall(a.accountId, q);
    await running(q, 1);
    expect(await windowsOf(a.accountId)).toEqual([]);
    const second = executeCapability(
      probe,
      { q },
      { env, waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" },
    );
    await running(q, 2);
    open();
    expect(await Promise.all((await Promise.all([first, second])).map(billedOf))).toEqual([true, false]);
    await settled();
    const fingerprint = await requestFingerprint("window-probe", { q });
    expect(await windowsOf(a.accountId)).toEqual([expect.objectContaining({ fingerprint })]);
    expect(await phoneUsed(a.accountId)).toBe(1);
  });

  it("survives a restart of the limiter: the call's requests are read back from its reservation record, and its settlement keeps the window", async () => {
    const a = await createAccount({ plan: "scale" });
    const q = crypto.randomUUID();
    const { running: held, open, settled } = heldCall(a.accountId, q);
    await running(q, 1);
    await evictDurableObject(stubOf(a.accountId));
    open();
    expect(await billedOf(await held)).toBe(true);
    await settled();
    const fingerprint = await requestFingerprint("window-probe", { q });
    expect(await windowsOf(a.accountId)).toEqual([expect.objectContaining({ fingerprint })]);
  });

  it("bills the identical call that is charged first when one running beside it finds nothing: no call is left free", async () => {
    const a = await createAccount({ plan: "scale" });
    const q = crypto.randomUUID();
    // The first call finds nothing, the identical one started while it runs finds something.
    answers[q] = [false, true];
    const { running: first, open, waitUntil, settled } = heldCall(a.accountId, q);
    await running(q, 1);
    const second = executeCapability(
      probe,
      { q },
      { env, waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" },
    );
    await running(q, 2);
    open();
    const [one, two] = await Promise.all([first, second]);
    expect([await billedOf(one), await billedOf(two)]).toEqual([false, true]);
    await settled();
    expect(await phoneUsed(a.accountId)).toBe(1);
  });

  it("is closed with nothing written when the call's reservation is swept after its Worker died", async () => {
    const a = await createAccount({ plan: "scale" });
    const q = crypto.randomUUID();
    await limiterFor(env, a.accountId).admit({
      plan: "scale",
      group: "phone",
      cost: {},
      billing: {
        accountId: a.accountId,
        capability: "window-probe",
        source: "api",
        requests: [{ fingerprint: await requestFingerprint("window-probe", { q }), cost: { phone: 1 } }],
      },
    });
    const phoneAvailable = async () => (await limiterFor(env, a.accountId).balances("scale")).phone.available;
    expect(await phoneAvailable()).toBe(9_999);
    // The reservation's TTL passes on the limiter's clock, as if its Worker had died long ago.
    const clock = await limiterClock(stubOf(a.accountId), Date.now() + RESERVATION_TTL_MS + 5_000);
    expect(await runDurableObjectAlarm(stubOf(a.accountId))).toBe(true);
    clock.at(null);
    expect(await phoneAvailable()).toBe(10_000);
    expect(await phoneUsed(a.accountId)).toBe(0);
    expect(await windowsOf(a.accountId)).toEqual([]);
    const { waitUntil, settled } = collect();
    expect(
      await billedOf(
        await executeCapability(probe, { q }, { env, waitUntil, accountId: a.accountId, plan: "scale", surface: "v1" }),
      ),
    ).toBe(true);
    await settled();
  });
});

describe("what makes two requests identical", () => {
  it("bills `+1 415 555 0100` once, then answers `(415) 555-0100` with country US as its repeat", async () => {
    const a = await createAccount({ plan: "scale" });
    expect((await call("/v1/phone-validator?phone=%2B1%20415%20555%200100", { headers: a.headers })).status).toBe(200);
    await logsOf(a.headers, 1);
    expect(
      (await call("/v1/phone-validator?phone=(415)%20555-0100&country_code=US", { headers: a.headers })).status,
    ).toBe(200);
    expect((await logsOf(a.headers, 2)).map((l) => l.cost)).toEqual([false, true]);
  });
});
