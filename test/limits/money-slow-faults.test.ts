import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { executeCapability } from "../../src/capabilities/core/execute.js";
import type { Env } from "../../src/env.js";
import type { AccountLimiter } from "../../src/limits/account-limiter.js";
import { LimiterClient } from "../../src/limits/limiter-client.js";
import type { LimiterMessage } from "../../src/limits/limiter-messages.js";
import { createAccount } from "../support/accounts.js";
import { billedOf, collect, probeCapability } from "../support/limiter.js";
import { slowLimiters, virtualTime } from "../support/slow-time.js";

// Money where things are merely slow (a round trip, a call, a chunk, an outage that lasts): each
// test plays one slowness on virtual time and checks that an answer given is billed.

const probe = probeCapability("slow-probe", "search", async () => true);
let time: ReturnType<typeof virtualTime> | undefined;
afterEach(() => {
  time?.restore();
  time = undefined;
});

describe("money on slow paths", () => {
  it("an admission whose own round trip outlasts the orphan time is billed, not released as an orphan", async () => {
    const a = await createAccount({ plan: "enterprise" }); // admitted through its limiter first
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
        client: new LimiterClient(),
      },
    );
    expect(execution.response.status).toBe(200);
    expect(await billedOf(execution)).toBe(true);
    await w.settled();
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
});
