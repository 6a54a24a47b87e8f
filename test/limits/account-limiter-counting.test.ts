import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { RESERVATION_TTL_MS } from "../../src/limits/account-limiter.js";
import type { AdmitRequest } from "../../src/limits/limiter-messages.js";
import { limiterClock, settleOn } from "../support/limiter.js";

// A fixed instant in the middle of a UTC day: 2026-03-10T12:00:00Z.
const T0 = Date.UTC(2026, 2, 10, 12, 0, 0);
let n = 0;
/** A new limiter deciding on a clock the test moves (starting at T0). */
async function freshLimiter() {
  const stub = env.ACCOUNT_LIMITER.get(env.ACCOUNT_LIMITER.idFromName(`counting-test-${crypto.randomUUID()}-${++n}`));
  const clock = await limiterClock(stub, T0);
  /** Admits at the limiter's instant `at`. */
  const admit = (at: number, req: AdmitRequest) => {
    clock.at(at);
    return stub.admit(req);
  };
  return Object.assign(stub, { clock, admitAt: admit });
}
const search = (plan: string, cost: AdmitRequest["cost"] = {}): AdmitRequest => ({ plan, group: "search", cost });

describe("AccountLimiter counting rules (fake clock)", () => {
  it("refuses the second request inside a second with rps, and accepts after a full second of silence", async () => {
    const l = await freshLimiter();
    expect((await l.admitAt(T0, search("free"))).admitted).toBe(true);
    const refused = await l.admitAt(T0 + 500, search("free"));
    expect(refused).toMatchObject({ admitted: false, reason: "rps", retryAfter: 1 });
    expect((await l.admitAt(T0 + 1000, search("free"))).admitted).toBe(true);
  });

  it("keeps a per-second counter from resetting while traffic continues (no fixed window)", async () => {
    const l = await freshLimiter();
    const me = (now: number) => l.admitAt(now, { plan: "free", group: "me", cost: {} }); // 2/s
    expect((await me(T0)).admitted).toBe(true);
    expect((await me(T0 + 900)).admitted).toBe(true);
    // A fixed window would have reset at T0+1000; here the last accepted request was 900 ms ago.
    expect(await me(T0 + 1800)).toMatchObject({ admitted: false, reason: "rps" });
    expect((await me(T0 + 1900)).admitted).toBe(true);
  });

  it("counts per minute and resets only after 60 s without an accepted request", async () => {
    const l = await freshLimiter();
    expect((await l.admitAt(T0, search("free"))).admitted).toBe(true);
    expect((await l.admitAt(T0 + 1_000, search("free"))).admitted).toBe(true);
    const refused = await l.admitAt(T0 + 2_000, search("free"));
    expect(refused).toMatchObject({ admitted: false, reason: "rpm", retryAfter: 60 });
    expect(await l.admitAt(T0 + 60_999, search("free"))).toMatchObject({ admitted: false, reason: "rpm" });
    expect((await l.admitAt(T0 + 61_000, search("free"))).admitted).toBe(true);
  });

  it("refuses the sixth request of the day with daily and Retry-After to 00:00 UTC, then resets at midnight", async () => {
    const l = await freshLimiter();
    for (let i = 0; i < 5; i++) expect((await l.admitAt(T0 + i * 61_000, search("free"))).admitted).toBe(true);
    const sixth = await l.admitAt(T0 + 5 * 61_000, search("free"));
    expect(sixth).toMatchObject({ admitted: false, reason: "daily" });
    const midnight = Date.UTC(2026, 2, 11);
    expect((sixth as { retryAfter: number }).retryAfter).toBe((midnight - (T0 + 5 * 61_000)) / 1000);
    expect((await l.admitAt(midnight, search("free"))).admitted).toBe(true);
  });

  it("does not count refused requests, and shows pre-request values on a refusal", async () => {
    const l = await freshLimiter();
    const ok = await l.admitAt(T0, search("basic")); // 3/50/500
    expect(ok.snapshot).toMatchObject({ minuteLeft: 49, dailyLeft: 499, secondLeft: 2 });
    await l.admitAt(T0 + 1, search("basic"));
    await l.admitAt(T0 + 2, search("basic"));
    const refused = await l.admitAt(T0 + 3, search("basic"));
    expect(refused).toMatchObject({
      admitted: false,
      reason: "rps",
      snapshot: { minuteLeft: 47, dailyLeft: 497, secondLeft: 0 },
    });
    for (let i = 0; i < 5; i++) await l.admitAt(T0 + 4 + i, search("basic"));
    const after = await l.admitAt(T0 + 1_100, search("basic"));
    expect(after.snapshot).toMatchObject({ minuteLeft: 46, dailyLeft: 496 });
  });

  it("keeps one set of counters per endpoint row", async () => {
    const l = await freshLimiter();
    expect((await l.admitAt(T0, search("free"))).admitted).toBe(true);
    expect((await l.admitAt(T0 + 1, { plan: "free", group: "verifier", cost: {} })).admitted).toBe(true);
    expect((await l.admitAt(T0 + 2, search("free"))).admitted).toBe(false);
  });

  it("applies no limits on Pro Plus and Scale, and only 100,000 a day on Enterprise", async () => {
    const l = await freshLimiter();
    for (let i = 0; i < 20; i++) expect((await l.admitAt(T0, search("scale"))).admitted).toBe(true);
    const ent = await l.admitAt(T0, search("enterprise"));
    expect(ent.snapshot?.limits).toEqual({ second: 0, minute: 0, daily: 100_000 });
  });
});

describe("AccountLimiter credits", () => {
  it("reserves on admit, keeps the charge when found and refunds when nothing was found", async () => {
    const l = await freshLimiter();
    const plan = "free"; // 25 search credits
    const a = await l.admitAt(T0, search(plan, { search: 1 }));
    expect(a.admitted).toBe(true);
    // Held, not charged: the balance is lower, nothing is used yet.
    expect((await l.balances(plan)).search).toMatchObject({ available: 24, used: 0 });
    await settleOn(l, (a as { reservationIds: string[] }).reservationIds, false, {}, plan);
    expect((await l.balances(plan)).search).toMatchObject({ available: 25, used: 0 });
    const b = await l.admitAt(T0 + 1_000, search(plan, { search: 1 }));
    await settleOn(l, (b as { reservationIds: string[] }).reservationIds, true, { phone: 1 }, plan);
    const balances = await l.balances(plan);
    expect(balances.search.used).toBe(1);
    expect(balances.phone.used).toBe(1);
  });

  it("refuses a request whose cost exceeds the balance without counting it, and resets monthly", async () => {
    const l = await freshLimiter();
    const refused = await l.admitAt(T0, { plan: "free", group: null, cost: { verification: 51 } });
    expect(refused).toMatchObject({
      admitted: false,
      reason: "credits",
      balance: "verification",
      available: 50,
      needed: 51,
    });
    const spend = await l.admitAt(T0, { plan: "free", group: null, cost: { verification: 50 } });
    await settleOn(l, (spend as { reservationIds: string[] }).reservationIds, true, {}, "free");
    expect((await l.admitAt(T0, { plan: "free", group: null, cost: { verification: 1 } })).admitted).toBe(false);
    expect(
      (await l.admitAt(Date.UTC(2026, 3, 1), { plan: "free", group: null, cost: { verification: 1 } })).admitted,
    ).toBe(true);
  });

  it("raises limits to the higher of plan and pack while a pack has credits, and lifts them from 50,000", async () => {
    const l = await freshLimiter();
    await l.grantPack(3_000);
    const withPack = await l.admitAt(T0, search("free"));
    expect(withPack.snapshot?.limits).toEqual({ second: 5, minute: 80, daily: 1_000 }); // growth row
    const big = await freshLimiter();
    await big.grantPack(50_000);
    expect((await big.admitAt(T0, search("free"))).snapshot?.limits).toEqual({ second: 0, minute: 0, daily: 0 });
  });

  it("spends pack credits once the monthly allowance is gone", async () => {
    const l = await freshLimiter();
    await l.grantPack(10);
    const a = await l.admitAt(T0, { plan: "free", group: null, cost: { search: 30 } });
    if (!a.admitted) throw new Error("expected admission");
    await settleOn(l, a.reservationIds, true, {}, "free");
    const status = await l.status("free", []);
    expect(status.pack).toMatchObject({ remaining: 5 });
  });

  it("releases reservations that were never settled when the sweep alarm runs", async () => {
    const l = await freshLimiter();
    await l.admitAt(T0, { plan: "free", group: null, cost: { search: 2 } });
    await l.admitAt(T0 + 6 * 60_000, { plan: "free", group: null, cost: { search: 1 } });
    expect((await l.balances("free")).search.available).toBe(22);
    await runInDurableObject(l, async (_instance: AccountLimiter, state) => {
      expect(await state.storage.getAlarm()).not.toBeNull();
    });
    // The first one's Worker died: its TTL passes on the limiter's clock, the second's does not.
    l.clock.at(T0 + RESERVATION_TTL_MS + 5_000);
    expect(await runDurableObjectAlarm(l)).toBe(true);
    expect((await l.balances("free")).search).toMatchObject({ available: 24, used: 0 });
  });
});

describe("AccountLimiter fixed windows", () => {
  it("allows the limit per window and reports remaining and reset", async () => {
    const l = await freshLimiter();
    for (let i = 0; i < 5; i++) expect((await l.fixedWindow("reveal", 5, 1_000, T0 + i)).allowed).toBe(true);
    expect(await l.fixedWindow("reveal", 5, 1_000, T0 + 10)).toMatchObject({
      allowed: false,
      remaining: 0,
      resetSeconds: 1,
    });
    expect((await l.fixedWindow("reveal", 5, 1_000, T0 + 1_000)).allowed).toBe(true);
  });
});
