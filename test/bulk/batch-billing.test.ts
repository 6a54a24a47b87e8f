import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { executeBatch } from "../../src/capabilities/core/execute-batch.js";
import { emailFinder } from "../../src/capabilities/email-finder.js";
import { batchMemo } from "../../src/engine/memo.js";
import type { Env } from "../../src/env.js";
import { limiterFor } from "../../src/limits/admission.js";
import { call, createAccount, type TestAccount } from "../support/accounts.js";
import { eventually } from "../support/settle.js";
import { createdId, createJob, parseCsv, waitForEnd } from "./support.js";

const FOUND = ["Anna", "Boris", "Carla", "David", "Elena", "Frank", "Greta", "Hugo", "Irene", "Jonas"].map((f) => [
  "acme-widgets.test",
  f,
  "Baker",
]);
// The domain shows no named address to learn a format from: nothing is proposed, nothing billed.
const NOT_FOUND = ["Karin", "Lukas", "Marta", "Nils", "Olga", "Paul", "Rosa", "Sven", "Tina", "Uwe"].map((f) => [
  "generic-only.test",
  f,
  "Baker",
]);

/**
 * Expects the account's search balance to come to `expected`: the chunk's settlement may still be on
 * its way to the limiter, so it is polled (a fixed 200 ms sleep was a bet a busy machine could lose).
 */
async function expectSearch(account: TestAccount, expected: { used: number; available?: number }) {
  await eventually(async () =>
    expect((await limiterFor(env as unknown as Env, account.accountId).balances("free")).search).toMatchObject(
      expected,
    ),
  );
}

async function runFinder(account: TestAccount, rows: string[][], name: string) {
  const id = await createdId(
    await createJob(account, "finder", { name, data: [["domain", "first_name", "last_name"], ...rows], launch: true }),
  );
  const job = await waitForEnd(account, "finder", id);
  const csv = parseCsv(await (await call(`/v1/bulk/finder/${id}/download`, { headers: account.headers })).text());
  return { job, csv };
}

describe("a chunk is billed with one reservation, settled exactly", () => {
  it("charges found rows only, gives back not-found rows, and charges identical rows once", async () => {
    // Free plan: 25 search credits. The chunk reserves 20 (its distinct requests) and keeps 10.
    const account = await createAccount({ plan: "free" });
    const rows = [...FOUND, ...NOT_FOUND, FOUND[0]!];
    const { job, csv } = await runFinder(account, rows, "Exact chunk billing");
    // The repeated row is not run again (a duplicate): the download repeats its original's answer.
    expect(job).toMatchObject({ status: "completed", processed: 21 });
    expect(job.metrics.results).toMatchObject({ found: 10, not_found: 10 });
    expect(job.metrics.rows).toMatchObject({ input: 21, valid_input: 20, duplicates: 1 });
    expect(job.metrics.credits).toMatchObject({ search: 10, total: 10 });
    await expectSearch(account, { used: 10, available: 15 });
    expect(csv.slice(1).map((r) => r.at(-2))).toEqual([
      ...FOUND.map(() => "found"),
      ...NOT_FOUND.map(() => "not_found"),
      "duplicate",
    ]);
    expect(csv.at(-1)![3]).toBe("anna.baker@acme-widgets.test");
    expect(csv.at(-1)!.at(-1)).toBe("same lookup as row 1; not run again");
  }, 30_000);

  it("answers a request billed in the last 30 days free, as /v1 does", async () => {
    const account = await createAccount({ plan: "free" });
    const first = await runFinder(account, FOUND.slice(0, 3), "First time");
    expect(first.job.metrics.credits.search).toBe(3);
    const again = await runFinder(account, FOUND.slice(0, 3), "Same people again");
    expect(again.job).toMatchObject({ status: "completed", processed: 3 });
    expect(again.job.metrics.results.found).toBe(3);
    expect(again.job.metrics.credits.search).toBe(0);
    await expectSearch(account, { used: 3 });
  }, 30_000);

  it("runs of a chunk the balance cannot cover at once exactly the rows it pays for, in order, and stops there", async () => {
    // 25 credits, 30 rows that are all found: the chunk's admission reserves the first 25 and
    // refuses the rest, so the job stops after exactly 25.
    const account = await createAccount({ plan: "free" });
    const rows = [...FOUND, ...FOUND.map(([d, f]) => [d!, f!, "Fischer"]), ...FOUND.map(([d, f]) => [d!, f!, "Meyer"])];
    const { job } = await runFinder(account, rows, "More than the balance");
    expect(job).toMatchObject({ status: "failed", processed: 25 });
    expect(job.metrics.credits.search).toBe(25);
    await expectSearch(account, { used: 25, available: 0 });
  }, 30_000);
});

describe("executeBatch", () => {
  const run = async (account: TestAccount, people: string[][]) => {
    const ctx = createExecutionContext();
    const calls = people.map(([domain, first_name, last_name]) => ({ domain, first_name, last_name }));
    return executeBatch(emailFinder, calls, {
      env: env as unknown as Env,
      waitUntil: (p) => ctx.waitUntil(p),
      accountId: account.accountId,
      plan: "free",
      memo: batchMemo(),
      concurrency: 10,
      key,
    });
  };
  let key = crypto.randomUUID();

  it("charges each billed request what its answer cost, and answers the limiter's decision", async () => {
    const account = await createAccount({ plan: "free" });
    key = crypto.randomUUID();
    const batch = await run(account, FOUND.slice(0, 3));
    expect(batch!.outcomes.map((o) => o?.ok && o.billed)).toEqual([true, true, true]);
    const decision = await batch!.settle();
    expect(decision).toMatchObject({ charged: { search: 3 }, parts: [{ search: 1 }, { search: 1 }, { search: 1 }] });
    await expectSearch(account, { used: 3, available: 22 });
  });

  it("gives the whole reservation back when the results were not kept (the job stopped meanwhile)", async () => {
    const account = await createAccount({ plan: "free" });
    key = crypto.randomUUID();
    const batch = await run(account, FOUND.slice(0, 4));
    batch!.release();
    await expectSearch(account, { used: 0, available: 25 });
  });

  it("shares one reservation between deliveries of the same rows: asked again under the same key, the first answer comes back", async () => {
    const account = await createAccount({ plan: "free" });
    key = crypto.randomUUID();
    const first = await run(account, FOUND.slice(0, 4));
    const again = await run(account, FOUND.slice(0, 4));
    // The second delivery does not take the first one's open windows for repeats: it holds the same reservation.
    expect(again!.reservationIds).toEqual(first!.reservationIds);
    expect(again!.outcomes.map((o) => o?.ok && o.billed)).toEqual([true, true, true, true]);
    await expectSearch(account, { used: 0, available: 21 });
    await again!.settle();
    await first!.settle();
    await expectSearch(account, { used: 4, available: 21 });
  });

  it("runs only the calls the balance pays for, in order, and says why the others were not run", async () => {
    const account = await createAccount({ plan: "free" });
    key = crypto.randomUUID();
    const people = [...FOUND, ...FOUND, ...FOUND].map(([d, f], i) => [d!, f!, `Baker${i}`]);
    const batch = await run(account, people);
    expect(batch!.outcomes.map((o) => o !== null)).toEqual(people.map((_, i) => i < 25));
    expect(batch!.refusal?.status).toBe(402);
    await expectSearch(account, { used: 0, available: 0 });
  });
});

describe("the batch memo", () => {
  it("loads a shared question once and asks keys of the same turn in one load", async () => {
    const memo = batchMemo();
    let facts = 0;
    const loads: string[][] = [];
    const loadMany = async (keys: string[]) => {
      loads.push([...keys]);
      return new Map(keys.map((k) => [k, k.toUpperCase()]));
    };
    const [a, b] = await Promise.all([
      memo.once("facts:x", async () => ++facts),
      memo.once("facts:x", async () => ++facts),
    ]);
    expect([a, b, facts]).toEqual([1, 1, 1]);
    const values = await Promise.all(["p", "q", "p", "r"].map((k) => memo.together("claims", k, loadMany)));
    expect(values).toEqual(["P", "Q", "P", "R"]);
    expect(loads).toEqual([["p", "q", "r"]]);
    // Asked again later: answered from what the batch already knows.
    expect(await memo.together("claims", "q", loadMany)).toBe("Q");
    expect(await memo.together("claims", "s", loadMany)).toBe("S");
    expect(loads).toEqual([["p", "q", "r"], ["s"]]);
  });
});
