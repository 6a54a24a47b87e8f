import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env.js";
import { spendAttempt, type Throttle } from "../../src/platform/throttle.js";
import { settle } from "../support/settle.js";

const testEnv = env as Env;
const subject = () => `test:${crypto.randomUUID()}`;
const stubOf = (name: string) => testEnv.THROTTLE.get(testEnv.THROTTLE.idFromName(name));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a Throttle", () => {
  it("allows `limit` attempts in a window, then refuses without spending, saying how long to wait", async () => {
    const stub = stubOf(subject());
    for (let i = 1; i <= 3; i++)
      expect(await stub.spend("w", 3, 60_000)).toMatchObject({ allowed: true, remaining: 3 - i });
    const refused = await stub.spend("w", 3, 60_000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.resetSeconds).toBeGreaterThan(0);
    expect(refused.resetSeconds).toBeLessThanOrEqual(60);
    // Another window of the same subject is counted apart.
    expect((await stub.spend("other", 1, 60_000)).allowed).toBe(true);
  });

  it("starts a window again once it ran out, and forgets it at its alarm", async () => {
    const stub = stubOf(subject());
    expect((await stub.spend("w", 1, 50)).allowed).toBe(true);
    expect((await stub.spend("w", 1, 50)).allowed).toBe(false);
    await sleep(60);
    expect((await stub.spend("w", 1, 50)).allowed).toBe(true);
    await sleep(60);
    // The alarm may already have fired on its own; else run it now.
    await runDurableObjectAlarm(stub);
    const stored = () => runInDurableObject(stub, (_: Throttle, state) => [...state.storage.kv.list()].length);
    await settle(async () => (await stored()) === 0);
    expect(await runInDurableObject(stub, (_: Throttle, state) => state.storage.getAlarm())).toBeNull();
  });

  it("spends budgets in order: an attempt refused by one leaves the later ones untouched", async () => {
    const [first, second] = [subject(), subject()];
    const budgets = [
      { subject: first, window: "w", limit: 1, windowMs: 60_000 },
      { subject: second, window: "w", limit: 5, windowMs: 60_000 },
    ];
    expect(await spendAttempt(testEnv, budgets)).toBeNull();
    expect(await spendAttempt(testEnv, budgets)).toBeGreaterThan(0);
    expect(await stubOf(second).spend("w", 5, 60_000)).toMatchObject({ remaining: 3 });
  });
});
