import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import type { CreditState } from "../../src/limits/credit-book.js";
import { createAccount } from "../support/accounts.js";
import { limiterClock } from "../support/limiter.js";

const stubOf = (accountId: number) =>
  env.ACCOUNT_LIMITER.get(env.ACCOUNT_LIMITER.idFromName(`account:${accountId}`)) as DurableObjectStub<AccountLimiter>;
const monthOf = (stub: DurableObjectStub<AccountLimiter>) =>
  runInDurableObject(stub, (_i: AccountLimiter, state) => state.storage.kv.get<CreditState>("credits")?.month);

// The runtime replaces a limiter's instance when it likes (workerd evicts an object idle for 10 s;
// on a loaded machine a schedule of the money harness can leave its limiter that long). A clock set
// on the instance alone was lost with it: the new instance decided on the real time, so the month
// never moved backwards and the charges of the schedule's month were billed in 2026.
describe("the clock a test sets on a limiter", () => {
  it("is kept by a new instance of the limiter, after the runtime evicted the old one", async () => {
    const a = await createAccount({ plan: "scale" });
    const stub = stubOf(a.accountId);
    const clock = await limiterClock(stub, Date.UTC(2031, 4, 31, 23, 59, 59));
    await evictDurableObject(stub);
    await stub.grantPack(5);
    expect(await monthOf(stub)).toBe("2031-05");

    // Moved after the eviction too: the next decision is made in the month it now says.
    clock.at(Date.UTC(2031, 5, 1, 0, 0, 1));
    await evictDurableObject(stub);
    await stub.grantPack(5);
    expect(await monthOf(stub)).toBe("2031-06");
    clock.at(null);
  });
});
