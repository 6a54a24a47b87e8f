import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { executeCapability } from "../../src/capabilities/core/execute.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { admitRequest, BALANCES_TTL_MS, groupOnly, limiterFor } from "../../src/limits/admission.js";
import { LimiterClient } from "../../src/limits/limiter-client.js";
import { REPEAT_WINDOW_MS, requestFingerprint } from "../../src/limits/repeat-billing.js";
import { call, createAccount, json } from "../support/accounts.js";
import { aroundExchange, billedOf, collect, limiterClock, probeCapability, recordingEnv } from "../support/limiter.js";
import { settle } from "../support/settle.js";

describe("limiter admissions on the hot path", () => {
  it("answers every one of 20 concurrent HTTP calls (separate requests, one limiter) with 200 or 429, never more than the limit", async () => {
    const a = await createAccount({ plan: "free" }); // phone group: 1 per second, 2 per minute
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(`/v1/phone-validator?phone=%2B336123${String(40_000 + i)}`, { headers: a.headers }).then((r) => r.status),
      ),
    );
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    const admitted = statuses.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(1);
    expect(admitted).toBeLessThanOrEqual(2);
  });

  it("decides admissions that arrive while a round trip is in flight in one batch, in arrival order, with exact counts", async () => {
    const a = await createAccount({ plan: "basic" }); // phone group: 2 per second
    const { env: recorded, calls } = recordingEnv();
    const now = Date.now();
    const client = new LimiterClient();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        admitRequest(recorded, {
          accountId: a.accountId,
          plan: "basic",
          capability: groupOnly("phone"),
          extraCost: {},
          now,
          waitUntil: () => {},
          client,
        }),
      ),
    );
    expect(results.map((r, i) => (r.admitted ? i : -1)).filter((i) => i >= 0)).toEqual([0, 1]);
    expect(calls).toEqual(["exchange", "exchange"]);
  });

  it("sends a round trip that failed again, until the limiter answers: each admission decided once", async () => {
    for (const [failures, lost] of [
      [{ exchange: 1 }, {}],
      [{}, { exchange: 1 }],
    ] as const) {
      const a = await createAccount({ plan: "scale" });
      const { env: flaky, calls } = recordingEnv(env as Env, failures, lost);
      const client = new LimiterClient({ retryMs: 5 });
      const now = Date.now();
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, () =>
          admitRequest(flaky, {
            accountId: a.accountId,
            plan: "scale",
            capability: { rateGroup: "phone", cost: { balance: "phone", amount: 1 } },
            extraCost: {},
            now,
            waitUntil: () => {},
            client,
          }),
        ),
      );
      expect(outcomes.every((o) => o.admitted)).toBe(true);
      expect(calls.length).toBeGreaterThan(1);
      // Whether the limiter never saw the failed message or decided it and lost the reply: 6 credits held, no more.
      expect((await limiterFor(env, a.accountId).balances("scale")).phone.available).toBe(10_000 - 6);
    }
  });

  it("does not leave a line stuck behind a sender that never comes back: the next waiter sends its message again", async () => {
    const a = await createAccount({ plan: "basic" });
    let hang = 1;
    const base = env as Env;
    // The first round trip reaches the limiter, but its sender never resumes.
    const stuck = aroundExchange(base, (exchange, args) => {
      if (hang-- <= 0) return exchange(...args);
      void exchange(...args);
      return new Promise(() => {});
    });
    // Nothing gives the lost message up (giveUpMs never passes in this test): only a resend by the
    // next waiter can answer it. Held behind the lost sender, the second admission would never end.
    const client = new LimiterClient({ resendAfterMs: 50, giveUpMs: Number.MAX_SAFE_INTEGER });
    const admit = () =>
      admitRequest(stuck, {
        accountId: a.accountId,
        plan: "basic",
        capability: groupOnly("phone"),
        extraCost: {},
        now: Date.now(),
        waitUntil: () => {},
        client,
      });
    void admit(); // its request never comes back
    await settle(() => hang <= 0); // its message is the one in flight
    const second = await admit();
    expect(second.admitted).toBe(true);
    // The lost sender's admission was decided once (basic phone: 2 per second): this one is the second.
    expect((await limiterFor(env, a.accountId).status("basic", ["phone"])).groups.phone!.used.second).toBe(2);
  });

  it("admits a free call on a plan without limits without a limiter round trip, with the headers the limiter would send", async () => {
    const a = await createAccount({ plan: "scale" });
    const { env: recorded, calls } = recordingEnv();
    const now = Date.now();
    // The limiter decides at the same instant as the request, however long the machine takes between them.
    await limiterClock(limiterFor(env, a.accountId) as unknown as DurableObjectStub<AccountLimiter>, now);
    const local = await admitRequest(recorded, {
      accountId: a.accountId,
      plan: "scale",
      capability: groupOnly("phone"),
      extraCost: {},
      now,
      waitUntil: () => {},
    });
    expect(local.admitted).toBe(true);
    expect(calls).toEqual([]);
    // A billed call in the same group has to ask the limiter: its headers are the reference.
    const billed = await admitRequest(env, {
      accountId: a.accountId,
      plan: "scale",
      capability: { rateGroup: "phone", cost: { balance: "phone", amount: 1 } },
      extraCost: {},
      now,
      waitUntil: () => {},
    });
    expect(billed.admitted).toBe(true);
    // Both count the seconds to the next minute and day from that one instant: every header the same.
    expect(local.headers).toEqual(billed.headers);
  });

  it("counts a self-admitted call in the limiter by the call's own waitUntil, after the count's wait", async () => {
    const a = await createAccount({ plan: "scale" });
    const { waitUntil, settled } = collect();
    const now = Date.now();
    await admitRequest(env, {
      accountId: a.accountId,
      plan: "scale",
      capability: groupOnly("phone"),
      extraCost: {},
      now,
      waitUntil,
    });
    const before = await limiterFor(env, a.accountId).status("scale", ["phone"]);
    expect(before.groups.phone!.used.daily).toBe(0);
    // The call's own waitUntil sends the count (after countWaitMs): once it has settled, the limiter holds it.
    await settled();
    const after = await limiterFor(env, a.accountId).status("scale", ["phone"]);
    expect(after.groups.phone!.used.daily).toBe(1);
  });

  it("shows a self-admitted call on /v1/rate-limits at once", async () => {
    const a = await createAccount({ plan: "scale" });
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);
    const limits = await json(await call("/v1/rate-limits", { headers: a.headers }));
    expect(limits.data.me.daily.used).toBe(2);
  });
});

// A capability double billed one phone credit when it finds something (always).
const double = probeCapability("repeat-probe", "phone", () => true);

const unreachableD1 = new Proxy({} as D1Database, {
  get: () => () => {
    throw new Error("D1 was asked");
  },
});

describe("finding the account's limiter", () => {
  it("derives each account's object id once per isolate and namespace, and asks the namespace for a stub on every call", () => {
    const named: string[] = [];
    const stubbed: DurableObjectId[] = [];
    const namespace = {
      idFromName: (name: string) => {
        named.push(name);
        return env.ACCOUNT_LIMITER.idFromName(name);
      },
      get: (id: DurableObjectId) => {
        stubbed.push(id);
        return env.ACCOUNT_LIMITER.get(id);
      },
    };
    const fake = { ...(env as Env), ACCOUNT_LIMITER: namespace as unknown as Env["ACCOUNT_LIMITER"] };
    for (const accountId of [7, 7, 8, 7]) limiterFor(fake, accountId);
    expect(named).toEqual(["account:7", "account:8"]);
    expect(stubbed.map(String)).toEqual(
      [7, 7, 8, 7].map((n) => String(env.ACCOUNT_LIMITER.idFromName(`account:${n}`))),
    );
  });
});

describe("30-day repeats this isolate already knows", () => {
  it("answers a known repeat free without asking D1 and without reserving a credit", async () => {
    const a = await createAccount({ plan: "pro" });
    const q = crypto.randomUUID();
    const first = collect();
    const client = new LimiterClient();
    const billed = await executeCapability(
      double,
      { q },
      { env, waitUntil: first.waitUntil, accountId: a.accountId, plan: "pro", surface: "v1", client },
    );
    expect(await billedOf(billed)).toBe(true);
    await first.settled(); // the charge is recorded in D1 (and so remembered here)
    const usedAfterFirst = (await limiterFor(env, a.accountId).balances("pro")).phone.used;

    const second = collect();
    const repeat = await executeCapability(
      double,
      { q },
      {
        env: { ...(env as Env), DB: unreachableD1 },
        waitUntil: second.waitUntil,
        accountId: a.accountId,
        plan: "pro",
        surface: "v1",
        client,
      },
    );
    expect(repeat.response.status).toBe(200);
    expect(await billedOf(repeat)).toBe(false);
    await second.settled();
    expect((await limiterFor(env, a.accountId).balances("pro")).phone.used).toBe(usedAfterFirst);
  });

  it("forgets a window when its 30 days are over, and never answers for a clock before the billing", async () => {
    const a = await createAccount({ plan: "pro" });
    const q = crypto.randomUUID();
    const { waitUntil, settled } = collect();
    const client = new LimiterClient();
    expect(
      await billedOf(
        await executeCapability(
          double,
          { q },
          { env, waitUntil, accountId: a.accountId, plan: "pro", surface: "v1", client },
        ),
      ),
    ).toBe(true);
    await settled();
    // Its window opened when the limiter kept it, on the limiter's clock.
    const fingerprint = await requestFingerprint("repeat-probe", { q });
    const t = Date.now();
    expect(client.knownRepeat(a.accountId, fingerprint, t)).toBe(true);
    expect(client.knownRepeat(a.accountId, fingerprint, t - 60_000)).toBe(false);
    expect(client.knownRepeat(a.accountId, fingerprint, t + REPEAT_WINDOW_MS)).toBe(false);
    // Forgotten: even an instant inside the window goes back to the limiter.
    expect(client.knownRepeat(a.accountId, fingerprint, t)).toBe(false);
  });
});

describe("credit balances remembered for /v1/me on plans without limits", () => {
  const client = new LimiterClient();
  const meAdmission = (e: Env, accountId: number, now: number) =>
    admitRequest(e, {
      accountId,
      plan: "scale",
      capability: groupOnly("me"),
      extraCost: {},
      now,
      withBalances: true,
      waitUntil: () => {},
      client,
    });
  const phoneAvailable = (a: Awaited<ReturnType<typeof meAdmission>>) =>
    a.admitted ? a.balances?.phone.available : undefined;

  it(`answers from balances read less than ${BALANCES_TTL_MS} ms ago without a limiter round trip, then reads them again`, async () => {
    const a = await createAccount({ plan: "scale" });
    const { env: recorded, calls } = recordingEnv();
    const t = Date.now();
    const first = phoneAvailable(await meAdmission(recorded, a.accountId, t));
    expect(calls).toEqual(["exchange"]);
    // A charge made through another isolate (straight to the limiter): not seen within the bound...
    const spent = await limiterFor(env, a.accountId).admit({ plan: "scale", group: null, cost: { phone: 1 } });
    expect(spent.admitted).toBe(true);
    expect(phoneAvailable(await meAdmission(recorded, a.accountId, t + BALANCES_TTL_MS - 1))).toBe(first);
    expect(calls).toEqual(["exchange"]);
    // ...and seen once it has run out.
    expect(phoneAvailable(await meAdmission(recorded, a.accountId, t + BALANCES_TTL_MS))).toBe(first! - 1);
    expect(calls).toEqual(["exchange", "exchange"]);
  });

  it("forgets them at once when this isolate reserves credits for the account", async () => {
    const a = await createAccount({ plan: "scale" });
    const t = Date.now();
    const first = phoneAvailable(await meAdmission(env, a.accountId, t));
    const billed = await admitRequest(env, {
      accountId: a.accountId,
      plan: "scale",
      capability: { rateGroup: "phone", cost: { balance: "phone", amount: 1 } },
      extraCost: {},
      now: t,
      waitUntil: () => {},
      client,
    });
    expect(billed.admitted).toBe(true);
    expect(phoneAvailable(await meAdmission(env, a.accountId, t + 1))).toBe(first! - 1);
  });
});
