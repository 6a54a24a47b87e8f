// npm run bench -- hot-admission — runs inside workerd like the tests, but is not part of `npm test`.
// Where a billed call's time goes on the money path, without HTTP, wrangler, logs or other
// processes: many calls at once through the one executor (executeCapability) with a handler that
// answers at once, side by side in one run, rounds alternated, each round on a fresh account:
//   lease      scale: paid from the isolate's lease, charged late (no round trip before the answer)
//   shared     enterprise: a unit of the isolate's rate share of the day and the lease pay it, charged
//              late (no round trip before the answer; src/limits/isolate-rate-share.ts)
//   batched    enterprise: admitted by the limiter first, through LimiterClient (one message in
//              flight per account: admissions and settlements of many calls ride together)
//   per-call   enterprise: one admission round trip per call, and one settlement round trip per call
//              in its own waitUntil (the simpler design; a client overriding admit and settle, here
//              for the measurement only: it has no answer to outages, lost replies or cancellations)
// Per variant: calls/s (a round ends when every call's decision and waitUntil is done), the ratio
// to `batched`, limiter round trips per call, the mean time a round trip takes, and the mean time
// from the call's start to its answer.
//   BENCH_CALLS (default 2000 per round), BENCH_CONCURRENCY (50), BENCH_ROUNDS (3); --smoke: 100, 10, 1
import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { expect, it } from "vitest";
import { executeCapability } from "../src/capabilities/core/execute.js";
import { defineCapability } from "../src/capabilities/core/registry.js";
import type { Env } from "../src/env.js";
import { PendingDecision } from "../src/limits/billing-decision.js";
import { LimiterClient } from "../src/limits/limiter-client.js";
import type { AdmitRequest, AdmitResult, Settlement, SettlementOutcome } from "../src/limits/limiter-messages.js";

const vars = env as unknown as Record<string, string | undefined>;
const smoke = vars.BENCH_SMOKE === "1";
const CALLS = smoke ? 100 : Number(vars.BENCH_CALLS ?? 2_000);
const CONCURRENCY = smoke ? 10 : Number(vars.BENCH_CONCURRENCY ?? 50);
const ROUNDS = smoke ? 1 : Number(vars.BENCH_ROUNDS ?? 3);

const base = {
  label: "Bench",
  summary: "bench",
  tag: "Bench",
  paths: ["/bench"],
  params: z.object({ q: z.string() }),
  usageCategory: "search" as const,
  handler: async () => ({ body: { data: { ok: true } }, found: true }),
};
const billed = defineCapability({
  ...base,
  name: "bench-billed",
  rateGroup: "search",
  cost: { balance: "search", amount: 1 },
});

/** The limiter namespace, counting exchanges. */
function countingEnv() {
  const counter = { exchanges: 0, ms: 0 };
  const ns = (env as Env).ACCOUNT_LIMITER;
  const wrapped = {
    ...(env as Env),
    ACCOUNT_LIMITER: {
      idFromName: (name: string) => ns.idFromName(name),
      get: (id: DurableObjectId) => {
        const stub = ns.get(id) as unknown as Record<string, (...args: unknown[]) => unknown>;
        return new Proxy(stub, {
          get: (target, prop) => {
            if (prop !== "exchange") return target[prop as string];
            return async (...args: unknown[]) => {
              counter.exchanges += 1;
              const t = Date.now();
              try {
                return await target.exchange!(...args);
              } finally {
                counter.ms += Date.now() - t;
              }
            };
          },
        });
      },
    },
  } as unknown as Env;
  return { env: wrapped, counter };
}

/** One idempotent admission round trip per call, one settlement round trip per call in its own waitUntil. */
class PerCallClient extends LimiterClient {
  override async admit(
    e: Env,
    accountId: number,
    req: AdmitRequest,
    _waitUntil: (p: Promise<unknown>) => void,
  ): Promise<AdmitResult> {
    const keyed = { ...req, key: req.key ?? crypto.randomUUID() };
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.limiter(e, accountId).exchange({ plan: req.plan, admissions: [keyed] })).admissions[0]!;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
  }

  override settle(
    e: Env,
    accountId: number,
    plan: string,
    settlement: Settlement,
    waitUntil: (p: Promise<unknown>) => void,
  ): PendingDecision<SettlementOutcome> {
    const decision = new PendingDecision<SettlementOutcome>();
    waitUntil(
      this.limiter(e, accountId)
        .exchange({ plan, settlements: [settlement] })
        .then((r) => decision.decide(r.settlements[0]!)),
    );
    return decision;
  }
}

/** `chargeLater`: the caller takes the billing decision after the answer (a /v1 call): the lease path may pay it. */
type Variant = { name: string; plan: string; chargeLater: boolean; client: () => LimiterClient };
const VARIANTS: Variant[] = [
  { name: "lease", plan: "scale", chargeLater: true, client: () => new LimiterClient() },
  { name: "shared", plan: "enterprise", chargeLater: true, client: () => new LimiterClient() },
  { name: "batched", plan: "enterprise", chargeLater: false, client: () => new LimiterClient() },
  { name: "per-call", plan: "enterprise", chargeLater: false, client: () => new PerCallClient() },
];

let nextAccount = 9_100_000;

/** CALLS calls, CONCURRENCY at a time, on a fresh account; answers the wall time and what it cost. */
async function round(v: Variant) {
  const accountId = nextAccount++;
  const counting = countingEnv();
  const client = v.client();
  const pending: Promise<unknown>[] = [];
  const waitUntil = (p: Promise<unknown>) => void pending.push(p);
  let admissionMs = 0;
  let next = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < CALLS) {
      const q = `${v.name}-${accountId}-${next++}`;
      const t = Date.now();
      const run = await executeCapability(
        billed,
        { q },
        {
          env: counting.env,
          waitUntil,
          accountId,
          plan: v.plan,
          surface: "v1",
          chargeLater: v.chargeLater,
          client,
        },
      );
      admissionMs += Date.now() - t;
      expect(run.response.status).toBe(200);
      // The report asks for the decision (a /v1 log row does): lease-paid charges go then.
      pending.push(new Promise((resolve) => run.billing.whenDecided(async (b) => resolve(b))));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  // Everything the calls left behind (settlements, charges, counts) is part of their cost.
  while (pending.length) await Promise.all(pending.splice(0));
  await client.flush(counting.env, accountId);
  const ms = Date.now() - started;
  return { ms, exchanges: counting.counter.exchanges, tripMs: counting.counter.ms, answerMs: admissionMs / CALLS };
}

it("measures a billed call's money path: paid from a lease, admitted through batches, admitted one by one", async () => {
  const totals = new Map(VARIANTS.map((v) => [v.name, { ms: 0, exchanges: 0, tripMs: 0, answerMs: 0 }]));
  for (const v of VARIANTS) await round(v); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of r % 2 ? [...VARIANTS].reverse() : VARIANTS) {
      const out = await round(v);
      const t = totals.get(v.name)!;
      t.ms += out.ms;
      t.exchanges += out.exchanges;
      t.tripMs += out.tripMs;
      t.answerMs += out.answerMs / ROUNDS;
    }
  }
  const rate = (name: string) => (CALLS * ROUNDS) / (totals.get(name)!.ms / 1000);
  console.log(`\n${CALLS} calls x ${ROUNDS} rounds, ${CONCURRENCY} at a time, in workerd (rounds alternated)`);
  console.log("variant     calls/s   x batched   round trips/call   ms per round trip   ms to answer");
  for (const v of VARIANTS) {
    const t = totals.get(v.name)!;
    console.log(
      [
        v.name.padEnd(9),
        rate(v.name).toFixed(0).padStart(8),
        `${(rate(v.name) / rate("batched")).toFixed(2)}x`.padStart(11),
        (t.exchanges / (CALLS * ROUNDS)).toFixed(3).padStart(18),
        (t.exchanges ? t.tripMs / t.exchanges : 0).toFixed(2).padStart(19),
        t.answerMs.toFixed(2).padStart(14),
      ].join(" "),
    );
  }
});
