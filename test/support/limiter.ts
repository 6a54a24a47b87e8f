import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { defineCapability } from "../../src/capabilities/core/registry.js";
import type { Env } from "../../src/env.js";
import { AccountLimiter } from "../../src/limits/account-limiter.js";
import type { LimiterMessage, LimiterReply, Settlement } from "../../src/limits/limiter-messages.js";

/**
 * The test env with its limiter namespace wrapped so every RPC made to a limiter is recorded;
 * `failures` makes a method throw on its first N calls before reaching the limiter (unreachable),
 * `lostReplies` on its first N calls after the limiter decided (a caller cancelled or cut off
 * while the object committed).
 */
export function recordingEnv(
  base: Env = env as Env,
  failures: Record<string, number> = {},
  lostReplies: Record<string, number> = {},
) {
  const calls: string[] = [];
  const left = { ...failures };
  const lost = { ...lostReplies };
  const ns = base.ACCOUNT_LIMITER;
  const ACCOUNT_LIMITER = {
    idFromName: (name: string) => ns.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = ns.get(id) as unknown as Record<string, (...args: unknown[]) => unknown>;
      return new Proxy(stub, {
        get: (target, prop) =>
          typeof prop === "string" && ["admit", "exchange", "balances", "status", "syncUsage"].includes(prop)
            ? async (...args: unknown[]) => {
                calls.push(prop);
                if ((left[prop] ?? 0) > 0) {
                  left[prop]! -= 1;
                  throw new Error(`limiter unreachable (${prop})`);
                }
                const result = await target[prop]!(...args);
                if ((lost[prop] ?? 0) > 0) {
                  lost[prop]! -= 1;
                  throw new Error(`limiter reply lost (${prop})`);
                }
                return result;
              }
            : target[prop as string],
      });
    },
  };
  return {
    env: { ...base, ACCOUNT_LIMITER } as unknown as Env,
    calls,
    /** The next `n` calls of `method` fail before reaching the limiter. */
    failNext: (method: string, n: number) => {
      left[method] = n;
    },
    /** The next `n` calls of `method` are decided by the limiter, and their replies lost. */
    loseNext: (method: string, n: number) => {
      lost[method] = n;
    },
  };
}

type Exchange = (...args: unknown[]) => Promise<unknown>;

/**
 * `base` with every limiter's `exchange` passed through `around`, which gets the real round trip and
 * its arguments and answers in its place (to hold, hang or lose a round trip); the other methods, and
 * `exchange` when `around` sends it on, reach the limiters of `namespace`.
 */
export function aroundExchange(
  base: Env,
  around: (exchange: Exchange, args: unknown[]) => Promise<unknown>,
  namespace: Env["ACCOUNT_LIMITER"] = base.ACCOUNT_LIMITER,
): Env {
  const ACCOUNT_LIMITER = {
    idFromName: (name: string) => namespace.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = namespace.get(id) as unknown as Record<string, Exchange>;
      return new Proxy(stub, {
        get: (target, prop) =>
          prop === "exchange" ? (...args: unknown[]) => around(target.exchange!, args) : target[prop as string],
      });
    },
  };
  return { ...base, ACCOUNT_LIMITER } as unknown as Env;
}

/** A waitUntil that collects what it is given, and a way to wait for all of it. */
export function collect() {
  const pending: Promise<unknown>[] = [];
  return { waitUntil: (p: Promise<unknown>) => void pending.push(p), settled: () => Promise.all(pending) };
}

type LimiterStub = { exchange(msg: LimiterMessage): Promise<LimiterReply> };

/** Ends a call on the limiter directly: one settlement message (as an isolate sends it). */
export async function settleOn(
  limiter: LimiterStub,
  reservationIds: string[],
  found: boolean,
  adjust: Settlement["adjust"] = {},
  plan = "free",
) {
  return (await limiter.exchange({ plan, settlements: [{ reservationIds, found, adjust }] })).settlements[0]!;
}

/** The clocks tests set, by limiter id: every instance of that limiter decides with it. */
const clocks = new Map<string, () => number>();
let clocksRead = false;

/**
 * Makes every limiter read its clock from `clocks` first. A clock kept on an instance alone is lost
 * when the runtime replaces the instance (workerd evicts an object idle for 10 s, which a loaded
 * machine makes happen mid-test): the new one decided on the real time, months or years away from
 * the test's. The instant is read where the limiter reads it (`now`), so a new instance's very
 * first decision (its migration, in the constructor) is made on the test's clock too.
 */
function readClocksFirst() {
  if (clocksRead) return;
  clocksRead = true;
  const proto = AccountLimiter.prototype as unknown as { now(this: AccountLimiter): number };
  const own = proto.now;
  proto.now = function (this: AccountLimiter) {
    const id = (this as unknown as { ctx: DurableObjectState }).ctx.id.toString();
    return clocks.get(id)?.() ?? own.call(this);
  };
}

/**
 * Sets the clock a limiter decides with (its second, minute, day and month): `at(t)` moves it,
 * `at(null)` gives it back the real time. Every instance of that limiter keeps it, one made after
 * the runtime evicted the last one too.
 */
export async function limiterClock(stub: DurableObjectStub<AccountLimiter>, start: number | null) {
  readClocksFirst();
  let now = start;
  const clock = () => now ?? Date.now();
  clocks.set(stub.id.toString(), clock);
  // The live instance's own field says the same.
  await runInDurableObject(stub, (instance: AccountLimiter) => {
    instance.clock = clock;
  });
  return {
    at(t: number | null) {
      now = t;
    },
    get now() {
      return now ?? Date.now();
    },
  };
}

/** Whether a call was billed, once its limiter has decided (the report every surface writes). */
export const billedOf = (execution: { billing: { whenDecided(f: (billed: boolean) => Promise<unknown>): unknown } }) =>
  new Promise<boolean>((resolve) => execution.billing.whenDecided(async (billed) => resolve(billed)));

/**
 * A capability double for the money tests, under `/<name>` with one parameter `q`: costs one credit
 * of `balance` (rate group and usage category to match) and answers what `answer` says it found.
 */
export function probeCapability(
  name: string,
  balance: "search" | "phone",
  answer: (q: string) => Promise<boolean> | boolean,
) {
  return defineCapability({
    name,
    label: name,
    summary: "test double",
    tag: "Test",
    paths: [`/${name}`],
    params: z.object({ q: z.string() }),
    rateGroup: balance,
    cost: { balance, amount: 1 },
    usageCategory: balance === "phone" ? "phones" : "search",
    handler: async (params) => ({ body: { data: { q: params.q } }, found: await answer(params.q) }),
  });
}

/** A limiter object built again on the same storage: what the account's limiter reads after a restart. */
export type RestartedLimiter = Pick<AccountLimiter, "exchange" | "grantPack" | "balances">;

/** Runs `body` on a second limiter object built on `stub`'s storage (its constructor, migrations included, has run). */
export async function afterRestart<T>(
  stub: DurableObjectStub<AccountLimiter>,
  body: (limiter: RestartedLimiter, state: DurableObjectState) => T,
) {
  return runInDurableObject(stub, async (_instance: AccountLimiter, state) => {
    const { AccountLimiter: Limiter } = await import("../../src/limits/account-limiter.js");
    const fresh = new Limiter(state as never, env as never) as unknown as RestartedLimiter;
    await state.blockConcurrencyWhile(async () => {});
    return body(fresh, state);
  });
}
