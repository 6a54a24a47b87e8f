import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { executeCapability } from "../../src/capabilities/core/execute.js";
import type { Env } from "../../src/env.js";
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
});
