import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { BulkRowsMessage } from "../../src/bulk/consumer.js";
import type { BulkJob } from "../../src/bulk/job-object.js";
import { jobStub } from "../../src/bulk/jobs.js";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import { limiterFor } from "../../src/limits/admission.js";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";
import { settle } from "../support/settle.js";
import {
  act,
  ageBilling,
  createdId,
  createJob,
  deliverAndDieBeforeBilling,
  getJob,
  parseCsv,
  thirtyFoundFinderRows,
  waitForEnd,
} from "./support.js";

const PEOPLE = [
  ["domain", "first name", "last name"],
  ["acme-widgets.test", "Jane", "Cooper"],
  ["acme-widgets.test", "Peter", "Parker"],
  ["acme-widgets.test", "Mary", "Jones"],
];

/** A job marked running for run 1 without sending its messages, so the test delivers batches itself. */
async function runningJob(account: TestAccount): Promise<number> {
  const id = await createdId(await createJob(account, "finder", { name: "Exactly once", data: PEOPLE }));
  await runInDurableObject(jobStub(env, id), async (instance: BulkJob) => {
    const o = instance as unknown as { job: { status: string; run: number; startedAt: number }; save(): void };
    o.job.status = "running";
    o.job.run = 1;
    o.job.startedAt = Date.now();
    o.save();
  });
  return id;
}

async function deliver(body: BulkRowsMessage, attempts = 1) {
  const batch = createMessageBatch("bulk-rows", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env as unknown as Env, ctx);
  return getQueueResult(batch, ctx);
}

const readSearchCreditsUsed = async (account: TestAccount) =>
  (await limiterFor(env as unknown as Env, account.accountId).balances("pro")).search.used;

/**
 * The account's search credits used, read once the limiter shows `expected` (settlement runs after
 * the answer and may still be on its way: polled, where a fixed sleep was a bet a busy machine could
 * lose) or the deadline passed (the caller's expect then shows the real value).
 */
async function searchCreditsUsed(account: TestAccount, expected: number) {
  let used = await readSearchCreditsUsed(account);
  await settle(async () => {
    used = await readSearchCreditsUsed(account);
    return used === expected;
  }).catch(() => {});
  return used;
}

/** The same 200 ms on: for a check that nothing more was billed, a late wrong settlement has time to show. */
async function searchCreditsUsedLater(account: TestAccount) {
  await new Promise((r) => setTimeout(r, 200));
  return readSearchCreditsUsed(account);
}

async function downloadedEmails(account: TestAccount, id: number) {
  const rows = parseCsv(await (await call(`/v1/bulk/finder/${id}/download`, { headers: account.headers })).text());
  return rows.slice(1).map((r) => [r[1], r[3]]);
}

describe("bulk rows are processed exactly once", () => {
  it("records and bills nothing twice when the same batch is delivered twice", async () => {
    const account = await createAccount();
    const id = await runningJob(account);
    const first = await deliver({ jobId: id, chunk: 0, run: 1 });
    expect(first.explicitAcks).toHaveLength(1);
    const used = await searchCreditsUsed(account, 3);
    expect(used).toBe(3);

    const again = await deliver({ jobId: id, chunk: 0, run: 1 }, 2);
    expect(again.explicitAcks).toHaveLength(1);
    expect(await searchCreditsUsedLater(account)).toBe(used);
    const { job } = await getJob(account, "finder", id);
    expect(job).toMatchObject({ status: "completed", processed: 3 });
    expect(job.metrics.credits.search).toBe(3);
    expect(await downloadedEmails(account, id)).toEqual([
      ["Jane", "jane.cooper@acme-widgets.test"],
      ["Peter", "peter.parker@acme-widgets.test"],
      ["Mary", "mary.jones@acme-widgets.test"],
    ]);
  });

  it("finishes a chunk whose delivery died after recording its rows: the job bills them itself, once, and they are not run again", async () => {
    const account = await createAccount();
    const id = await runningJob(account);
    const stub = jobStub(env, id);
    await deliverAndDieBeforeBilling(env as unknown as Env, id, 0, "pro");
    // The rows are kept, with their billing; the limiter has only held the credits.
    expect((await getJob(account, "finder", id)).job.processed).toBe(3);
    expect(await searchCreditsUsedLater(account)).toBe(0);
    // A stale consumer (an older run) is told to stop and records nothing.
    const plan = await stub.beginChunk(1, 0);
    if (!plan.go) throw new Error("run 1 is the job's run: its chunk 0 may begin");
    const { token } = plan;
    expect(await stub.recordRows(0, 0, token, [])).toMatchObject({ go: false, recorded: [] });

    const result = await deliver({ jobId: id, chunk: 0, run: 1 }, 2);
    expect(result.explicitAcks).toHaveLength(1);
    expect((await getJob(account, "finder", id)).job).toMatchObject({ status: "completed", processed: 3 });
    // The job's alarm sends the billing the dead delivery left.
    await ageBilling(id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await searchCreditsUsed(account, 3)).toBe(3);
    expect((await getJob(account, "finder", id)).job.metrics.credits.search).toBe(3);
    expect((await downloadedEmails(account, id)).map((r) => r[0])).toEqual(["Jane", "Peter", "Mary"]);
  });

  it("drops a message of an older run or of a job that is no longer running", async () => {
    const account = await createAccount();
    const id = await runningJob(account);
    expect((await deliver({ jobId: id, chunk: 0, run: 7 })).explicitAcks).toHaveLength(1);
    expect((await getJob(account, "finder", id)).job.processed).toBe(0);
    await act(account, "POST", `/v1/bulk/finder/${id}/cancel`);
    expect((await deliver({ jobId: id, chunk: 0, run: 1 })).explicitAcks).toHaveLength(1);
    expect((await getJob(account, "finder", id)).job).toMatchObject({ status: "cancelled", processed: 0 });
    expect(await searchCreditsUsedLater(account)).toBe(0);
  });
});

describe("dead letters", () => {
  it("fails the job of a chunk that kept failing, and the job can be retried", async () => {
    const account = await createAccount();
    const id = await runningJob(account);
    const batch = createMessageBatch("bulk-rows-dlq", [
      { id: "d1", timestamp: new Date(), attempts: 1, body: { jobId: id, chunk: 0, run: 1 } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env as unknown as Env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["d1"]);
    const { job } = await getJob(account, "finder", id);
    expect(job.status).toBe("failed");
    expect(job.error_message).toMatch(/^Rows 1 to 3 kept failing.*Retry the job/);
    expect((await act(account, "POST", `/v1/bulk/finder/${id}/retry`)).status).toBe(200);
    expect((await waitForEnd(account, "finder", id)).status).toBe("completed");
  });
});

describe("credits running out mid-job", () => {
  it("stops the job as failed with a clear error_message, then a retry after a top-up finishes only the rows not done", async () => {
    // The free plan has 25 search credits a month; 30 rows need 30.
    const account = await createAccount({ plan: "free" });
    const rows = thirtyFoundFinderRows();
    const id = await createdId(
      await createJob(account, "finder", { name: "Too many for the plan", data: rows, launch: true }),
    );
    const failed = await waitForEnd(account, "finder", id);
    expect(failed.status).toBe("failed");
    expect(failed.processed).toBe(25);
    expect(failed.error_message).toMatch(
      /^Stopped after 25 of 30 rows: Your search balance \(0 credits\) is lower than this request's cost \(1\)\..*retry the job/,
    );

    const estimate = (await json(await call(`/v1/bulk/finder/${id}/estimate`, { headers: account.headers }))).data;
    expect(estimate).toMatchObject({
      basis: "upper_bound",
      rows: 5,
      credits: { search: 5, total: 5 },
      remaining: { search: 0 },
      sufficient: false,
    });
    await expectRetryRefused(account, id);

    await limiterFor(env as unknown as Env, account.accountId).grantPack(10);
    expect((await act(account, "POST", `/v1/bulk/finder/${id}/retry`)).status).toBe(200);
    const done = await waitForEnd(account, "finder", id);
    expect(done).toMatchObject({ status: "completed", processed: 30, retry_count: 1, error_message: null });
    expect(done.metrics.credits.search).toBe(30);
    const csv = parseCsv(await (await call(`/v1/bulk/finder/${id}/download`, { headers: account.headers })).text());
    expect(csv.slice(1).map((r) => `${r[1]} ${r[2]}`)).toEqual(rows.slice(1).map((r) => `${r[1]} ${r[2]}`));
    expect(new Set(csv.slice(1).map((r) => r[3])).size).toBe(30);
    // Two whole jobs through the local queue: well over the 5 s default on a busy machine.
  }, 30_000);
});

async function expectRetryRefused(account: TestAccount, id: number) {
  const res = await act(account, "POST", `/v1/bulk/finder/${id}/retry`);
  expect(res.status).toBe(402);
  expect((await json(res)).errors.type).toBe("quota_exceeded");
}
