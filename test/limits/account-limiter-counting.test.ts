import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountLimiter, AdmitRequest } from "../../src/limits/account-limiter.js";
import { RESERVATION_TTL_MS } from "../../src/limits/account-limiter.js";

// A fixed instant in the middle of a UTC day: 2026-03-10T12:00:00Z.
const T0 = Date.UTC(2026, 2, 10, 12, 0, 0);
let n = 0;
const freshLimiter = () => env.ACCOUNT_LIMITER.get(env.ACCOUNT_LIMITER.idFromName(`counting-test-${++n}`));
const search = (plan: string, now: number, cost: AdmitRequest["cost"] = {}): AdmitRequest => ({ plan, group: "search", cost, now });

describe("AccountLimiter counting rules (fake clock)", () => {
  it("refuses the second request inside a second with rps, and accepts after a full second of silence", async () => {
    const l = freshLimiter();
    expect((await l.admit(search("free", T0))).admitted).toBe(true);
    const refused = await l.admit(search("free", T0 + 500));
    expect(refused).toMatchObject({ admitted: false, reason: "rps", retryAfter: 1 });
    expect((await l.admit(search("free", T0 + 1000))).admitted).toBe(true);
  });

  it("keeps a per-second counter from resetting while traffic continues (no fixed window)", async () => {
    const l = freshLimiter();
    const me = (now: number) => l.admit({ plan: "free", group: "me", cost: {}, now }); // 2/s
    expect((await me(T0)).admitted).toBe(true);
    expect((await me(T0 + 900)).admitted).toBe(true);
    // A fixed window would have reset at T0+1000; here the last accepted request was 900 ms ago.
    expect(await me(T0 + 1800)).toMatchObject({ admitted: false, reason: "rps" });
    expect((await me(T0 + 1900)).admitted).toBe(true);
  });

  it("counts per minute and resets only after 60 s without an accepted request", async () => {
    const l = freshLimiter();
    expect((await l.admit(search("free", T0))).admitted).toBe(true);
    expect((await l.admit(search("free", T0 + 1_000))).admitted).toBe(true);
    const refused = await l.admit(search("free", T0 + 2_000));
    expect(refused).toMatchObject({ admitted: false, reason: "rpm", retryAfter: 60 });
    expect(await l.admit(search("free", T0 + 60_999))).toMatchObject({ admitted: false, reason: "rpm" });
    expect((await l.admit(search("free", T0 + 61_000))).admitted).toBe(true);
  });

  it("refuses the sixth request of the day with daily and Retry-After to 00:00 UTC, then resets at midnight", async () => {
    const l = freshLimiter();
    for (let i = 0; i < 5; i++) expect((await l.admit(search("free", T0 + i * 61_000))).admitted).toBe(true);
    const sixth = await l.admit(search("free", T0 + 5 * 61_000));
    expect(sixth).toMatchObject({ admitted: false, reason: "daily" });
    const midnight = Date.UTC(2026, 2, 11);
    expect((sixth as { retryAfter: number }).retryAfter).toBe((midnight - (T0 + 5 * 61_000)) / 1000);
    expect((await l.admit(search("free", midnight))).admitted).toBe(true);
  });

  it("does not count refused requests, and shows pre-request values on a refusal", async () => {
    const l = freshLimiter();
    const ok = await l.admit(search("basic", T0)); // 3/50/500
    expect(ok.snapshot).toMatchObject({ minuteLeft: 49, dailyLeft: 499, secondLeft: 2 });
    await l.admit(search("basic", T0 + 1));
    await l.admit(search("basic", T0 + 2));
    const refused = await l.admit(search("basic", T0 + 3));
    expect(refused).toMatchObject({ admitted: false, reason: "rps", snapshot: { minuteLeft: 47, dailyLeft: 497, secondLeft: 0 } });
    for (let i = 0; i < 5; i++) await l.admit(search("basic", T0 + 4 + i));
    const after = await l.admit(search("basic", T0 + 1_100));
    expect(after.snapshot).toMatchObject({ minuteLeft: 46, dailyLeft: 496 });
  });

  it("keeps one set of counters per endpoint row", async () => {
    const l = freshLimiter();
    expect((await l.admit(search("free", T0))).admitted).toBe(true);
    expect((await l.admit({ plan: "free", group: "verifier", cost: {}, now: T0 + 1 })).admitted).toBe(true);
    expect((await l.admit(search("free", T0 + 2))).admitted).toBe(false);
  });

  it("applies no limits on Pro Plus and Scale, and only 100,000 a day on Enterprise", async () => {
    const l = freshLimiter();
    for (let i = 0; i < 20; i++) expect((await l.admit(search("scale", T0))).admitted).toBe(true);
    const ent = await l.admit(search("enterprise", T0));
    expect(ent.snapshot?.limits).toEqual({ second: 0, minute: 0, daily: 100_000 });
  });
});

describe("AccountLimiter credits", () => {
  it("reserves on admit, keeps the charge when found and refunds when nothing was found", async () => {
    const l = freshLimiter();
    const plan = "free"; // 25 search credits
    const a = await l.admit(search(plan, T0, { search: 1 }));
    expect(a.admitted).toBe(true);
    expect((await l.balances(plan, T0)).search).toMatchObject({ available: 24, used: 1 });
    await l.settle((a as { reservationIds: string[] }).reservationIds, false, {}, plan, T0);
    expect((await l.balances(plan, T0)).search).toMatchObject({ available: 25, used: 0 });
    const b = await l.admit(search(plan, T0 + 1_000, { search: 1 }));
    await l.settle((b as { reservationIds: string[] }).reservationIds, true, { phone: 1 }, plan, T0);
    const balances = await l.balances(plan, T0);
    expect(balances.search.used).toBe(1);
    expect(balances.phone.used).toBe(1);
  });

  it("refuses a request whose cost exceeds the balance without counting it, and resets monthly", async () => {
    const l = freshLimiter();
    const refused = await l.admit({ plan: "free", group: null, cost: { verification: 51 }, now: T0 });
    expect(refused).toMatchObject({ admitted: false, reason: "credits", balance: "verification", available: 50, needed: 51 });
    const spend = await l.admit({ plan: "free", group: null, cost: { verification: 50 }, now: T0 });
    await l.settle((spend as { reservationIds: string[] }).reservationIds, true, {}, "free", T0);
    expect((await l.admit({ plan: "free", group: null, cost: { verification: 1 }, now: T0 })).admitted).toBe(false);
    expect((await l.admit({ plan: "free", group: null, cost: { verification: 1 }, now: Date.UTC(2026, 3, 1) })).admitted).toBe(true);
  });

  it("raises limits to the higher of plan and pack while a pack has credits, and lifts them from 50,000", async () => {
    const l = freshLimiter();
    await l.grantPack(3_000, T0);
    const withPack = await l.admit(search("free", T0));
    expect(withPack.snapshot?.limits).toEqual({ second: 5, minute: 80, daily: 1_000 }); // growth row
    const big = freshLimiter();
    await big.grantPack(50_000, T0);
    expect((await big.admit(search("free", T0))).snapshot?.limits).toEqual({ second: 0, minute: 0, daily: 0 });
  });

  it("spends pack credits once the monthly allowance is gone", async () => {
    const l = freshLimiter();
    await l.grantPack(10, T0);
    const a = await l.admit({ plan: "free", group: null, cost: { search: 30 }, now: T0 });
    expect(a.admitted).toBe(true);
    const status = await l.status("free", [], T0);
    expect(status.pack).toMatchObject({ remaining: 5 });
  });

  it("refunds reservations that were never settled when the sweep alarm runs", async () => {
    const l = freshLimiter();
    const now = Date.now();
    await l.admit({ plan: "free", group: null, cost: { search: 2 }, now });
    await l.admit({ plan: "free", group: null, cost: { search: 1 }, now });
    await runInDurableObject(l, async (instance: AccountLimiter, state) => {
      expect(await state.storage.getAlarm()).not.toBeNull();
      // Age the first reservation past the TTL, as if its Worker had died long ago.
      const reservations = (instance as unknown as { reservations: Map<string, { at: number; fromPlan: number }> }).reservations;
      const [first] = [...reservations.values()].filter((r) => r.fromPlan === 2);
      first!.at = now - RESERVATION_TTL_MS - 5_000;
    });
    expect(await runDurableObjectAlarm(l)).toBe(true);
    // The stale reservation is refunded; the fresh one stays spent.
    expect((await l.balances("free", now)).search.used).toBe(1);
  });
});

describe("AccountLimiter fixed windows", () => {
  it("allows the limit per window and reports remaining and reset", async () => {
    const l = freshLimiter();
    for (let i = 0; i < 5; i++) expect((await l.fixedWindow("reveal", 5, 1_000, T0 + i)).allowed).toBe(true);
    expect(await l.fixedWindow("reveal", 5, 1_000, T0 + 10)).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 1 });
    expect((await l.fixedWindow("reveal", 5, 1_000, T0 + 1_000)).allowed).toBe(true);
  });
});
