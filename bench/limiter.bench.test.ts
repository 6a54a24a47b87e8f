// npm run bench -- limits — runs inside workerd like the tests, but is not part of `npm test`.
// 1. Exactness: 500 concurrent admissions at one instant against basic's 3 per second must admit exactly 3.
// 2. Cost: median latency of a capability call with the limiter against the same call without it,
//    measured side by side in one run.
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { Hono } from "hono";
import { expect, it } from "vitest";
import { executeCapability } from "../src/capabilities/core/execute.js";
import { defineCapability } from "../src/capabilities/core/registry.js";
import type { AccountLimiter } from "../src/limits/account-limiter.js";
import { limiterFor } from "../src/limits/admission.js";
import { limiterClock } from "../test/support/limiter.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

it("admits exactly 3 of 500 concurrent requests against basic's 3-per-second search limit", async () => {
  const limiter = limiterFor(env, 9_000_001);
  // One instant on the limiter's clock: the second cannot turn while the 500 are decided.
  await limiterClock(limiter as unknown as DurableObjectStub<AccountLimiter>, Date.now());
  const results = await Promise.all(
    Array.from({ length: 500 }, () => limiter.admit({ plan: "basic", group: "search", cost: {} })),
  );
  const admitted = results.filter((r) => r.admitted).length;
  console.log(`exactness: ${admitted} of 500 concurrent requests admitted against a 3/s limit`);
  expect(admitted).toBe(3);
});

it("measures the limiter's cost per request", async () => {
  const base = {
    label: "Bench",
    summary: "bench",
    tag: "Bench",
    paths: ["/bench"],
    params: z.object({}),
    usageCategory: "search" as const,
    handler: async () => {
      // One indexed D1 read, like a capability answering from the contact index.
      const row = await env.DB.prepare("SELECT count(*) AS n FROM emails WHERE domain = ?").bind("bench.test").first();
      return { body: { data: row }, found: true };
    },
  };
  const limited = defineCapability({
    ...base,
    name: "limited",
    rateGroup: "search",
    cost: { balance: "search", amount: 1 },
  });
  const free = defineCapability({ ...base, name: "free", rateGroup: null, cost: null });
  const app = new Hono();
  for (const cap of [limited, free]) {
    app.get(
      `/${cap.name}`,
      async () =>
        (
          await executeCapability(
            cap,
            {},
            { env, waitUntil: () => {}, accountId: 9_000_002, plan: "scale", surface: "v1" },
          )
        ).response,
    );
  }
  // `--smoke` (BENCH_SMOKE=1): 20 rounds, to see the bench still runs.
  const rounds = env.BENCH_SMOKE === "1" ? 20 : 400;
  const timings: Record<string, number[]> = { limited: [], free: [] };
  // warm up
  for (let i = 0; i < 20; i++) {
    await app.request("/limited");
    await app.request("/free");
  }
  for (let i = 0; i < rounds; i++) {
    for (const name of i % 2 ? ["limited", "free"] : ["free", "limited"]) {
      const t = performance.now();
      const res = await app.request(`/${name}`);
      await res.arrayBuffer();
      // A refused or failed call would time the error path, not the limiter.
      expect(res.status).toBe(200);
      timings[name]!.push(performance.now() - t);
    }
  }
  // workerd freezes timers between I/O, so also measure wall time over the whole batch.
  const batch = async (name: string) => {
    const t = Date.now();
    for (let i = 0; i < rounds; i++) await (await app.request(`/${name}`)).arrayBuffer();
    return (Date.now() - t) / rounds;
  };
  const [freeAvg, limitedAvg] = [await batch("free"), await batch("limited")];
  console.log(
    `cost: median with limiter ${median(timings.limited!).toFixed(3)} ms, without ${median(timings.free!).toFixed(3)} ms; ` +
      `batch average with ${limitedAvg.toFixed(3)} ms, without ${freeAvg.toFixed(3)} ms; ratio ${(limitedAvg / Math.max(freeAvg, 0.001)).toFixed(2)}x`,
  );
});
