import {
  createExecutionContext,
  createMessageBatch,
  evictDurableObject,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { BulkJob } from "../../src/bulk/job-object.js";
import { jobStub } from "../../src/bulk/jobs.js";
import { db } from "../../src/db/client.js";
import { bulkJobs } from "../../src/db/schema-bulk.js";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import { limiterFor } from "../../src/limits/admission.js";
import { call, createAccount, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";
import {
  act,
  ageBilling,
  createdId,
  createJob,
  deliverAndDieBeforeBilling,
  getJob,
  indexedBeforehand,
  launchLosingMessages,
  parseCsv,
  waitForEnd,
} from "./support.js";

const FIRST = [
  "Anna",
  "Boris",
  "Carla",
  "David",
  "Elena",
  "Frank",
  "Greta",
  "Hugo",
  "Irene",
  "Jonas",
  "Karin",
  "Lukas",
];
const LAST = ["Baker", "Fischer", "Meyer", "Schulz", "Wagner", "Becker", "Hoffmann", "Koch", "Richter", "Klein"];
/** 120 people all found at acme-widgets.test ({first}.{last}): chunks of 50, 50 and 20 rows. */
const PEOPLE = [
  ["domain", "first_name", "last_name"],
  ...LAST.flatMap((l) => FIRST.map((f) => ["acme-widgets.test", f, l])),
];

async function deliver(jobId: number, chunk: number, run = 1) {
  const batch = createMessageBatch("bulk-rows", [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: { jobId, chunk, run } },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env as unknown as Env, ctx);
  return getQueueResult(batch, ctx);
}

/** Makes every lease of the job due now, as if its lease time had passed. */
async function expireLeases(id: number, sends?: number) {
  await runInDurableObject(jobStub(env, id), async (_instance: BulkJob, state) => {
    state.storage.sql.exec(`UPDATE claims SET due = 0${sends === undefined ? "" : `, sends = ${sends}`}`);
  });
}

const alarmOf = (id: number) => runInDurableObject(jobStub(env, id), (_i: BulkJob, state) => state.storage.getAlarm());

describe("a bulk job owns its liveness", () => {
  it("sends again exactly the chunks lost with a restart, finishes by itself, every row once and billed once", async () => {
    const account = await createAccount();
    await indexedBeforehand("acme-widgets.test");
    const id = await createdId(await createJob(account, "finder", { name: "Crash mid-job", data: PEOPLE }));
    const stub = jobStub(env, id);
    await launchLosingMessages(account, id);
    expect((await getJob(account, "finder", id)).job.status).toBe("running");

    // Chunk 0 ran to the end before the crash.
    expect((await deliver(id, 0)).explicitAcks).toHaveLength(1);
    // Chunk 1: a consumer recorded its rows, then the process died before billing them.
    await deliverAndDieBeforeBilling(env as unknown as Env, id, 1, "pro");
    // Chunk 2's message was never delivered.
    expect((await getJob(account, "finder", id)).job.processed).toBe(100);

    // The object restarts (its in-memory state and the queue that lost messages are gone); its alarm is still set.
    await evictDurableObject(stub);
    expect(await alarmOf(id)).not.toBeNull();
    // The chunks' lease time passes: the alarm sends exactly the two unfinished chunks again.
    await expireLeases(id);
    await ageBilling(id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const done = await waitForEnd(account, "finder", id);
    expect(done).toMatchObject({ status: "completed", processed: 120, retry_count: 0 });

    const history = (await json(await call(`/v1/bulk/finder/${id}/history`, { headers: account.headers }))).data as {
      event: string;
      meta: { chunks?: number[] };
    }[];
    expect(history.filter((e) => e.event === "requeued").map((e) => e.meta.chunks)).toEqual([[1, 2]]);

    const csv = parseCsv(await (await call(`/v1/bulk/finder/${id}/download`, { headers: account.headers })).text());
    const rows = csv.slice(1);
    expect(rows).toHaveLength(120);
    expect(rows.map((r) => `${r[1]} ${r[2]}`)).toEqual(PEOPLE.slice(1).map((r) => `${r[1]} ${r[2]}`));
    expect(new Set(rows.map((r) => r[3])).size).toBe(120);
    expect(rows.every((r) => r.at(-2) === "found")).toBe(true);
    expect(done.metrics.credits.search).toBe(120);
    await settle(
      async () => (await limiterFor(env as unknown as Env, account.accountId).balances("pro")).search.used === 120,
      { timeout: 5_000 },
    );

    // The running slot is free again: the index row says completed, and the alarm is gone.
    const [index] = await db(env.DB).select({ status: bulkJobs.status }).from(bulkJobs).where(eq(bulkJobs.id, id));
    expect(index!.status).toBe("completed");
    expect(await alarmOf(id)).toBeNull();
  }, 60_000);

  it("re-arms itself while nothing is late, and a job larger than its window of chunks finishes after its first chunks were lost", async () => {
    const account = await createAccount();
    // 20 chunks: more than the 16 sent at launch.
    const emails = [["email"], ...Array.from({ length: 1_000 }, (_, i) => [`person${i}@acme-verify.test`])];
    const id = await createdId(await createJob(account, "verifier", { name: "Window", data: emails }));
    const stub = jobStub(env, id);
    await launchLosingMessages(account, id);
    // Nothing is late yet: the alarm sends nothing and sets itself again.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await alarmOf(id)).not.toBeNull();
    expect(
      (await json(await call(`/v1/bulk/verifier/${id}/history`, { headers: account.headers }))).data.map(
        (e: { event: string }) => e.event,
      ),
    ).toEqual(["created", "launched"]);
    await evictDurableObject(stub);
    await expireLeases(id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const done = await waitForEnd(account, "verifier", id, 60_000);
    expect(done).toMatchObject({ status: "completed", processed: 1_000 });
    const csv = parseCsv(await (await call(`/v1/bulk/verifier/${id}/download`, { headers: account.headers })).text());
    expect(csv.slice(1).map((r) => r[0])).toEqual(emails.slice(1).map((r) => r[0]));
  }, 90_000);

  it("fails a job whose chunk was sent five times without finishing; the job can then be retried", async () => {
    const account = await createAccount();
    const id = await createdId(
      await createJob(account, "verifier", { name: "Never finishes", list: "a@acme-verify.test\nb@acme-verify.test" }),
    );
    const stub = jobStub(env, id);
    await launchLosingMessages(account, id);
    await evictDurableObject(stub);
    await expireLeases(id, 5);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const { job } = await getJob(account, "verifier", id);
    expect(job.status).toBe("failed");
    expect(job.error_message).toBe(
      "Rows 1 to 2 were sent 5 times without finishing and were set aside. Retry the job to run the unfinished rows again.",
    );
    expect(await alarmOf(id)).toBeNull();
    expect((await act(account, "POST", `/v1/bulk/verifier/${id}/retry`)).status).toBe(200);
    expect((await waitForEnd(account, "verifier", id)).status).toBe("completed");
  });

  it("writes the index row of a job that ended while its object went away", async () => {
    const account = await createAccount();
    const id = await createdId(
      await createJob(account, "verifier", { name: "Ended quietly", list: "a@acme-verify.test", launch: true }),
    );
    await waitForEnd(account, "verifier", id);
    // As if the object died after deciding the end but before the index and the end event went out.
    await db(env.DB).update(bulkJobs).set({ status: "running" }).where(eq(bulkJobs.id, id));
    await runInDurableObject(jobStub(env, id), async (instance: BulkJob, state) => {
      const o = instance as unknown as { job: { ending: boolean }; save(): void };
      o.job.ending = true;
      o.save();
      await state.storage.setAlarm(Date.now() + 30_000);
    });
    await evictDurableObject(jobStub(env, id));
    expect(await runDurableObjectAlarm(jobStub(env, id))).toBe(true);
    const [index] = await db(env.DB).select({ status: bulkJobs.status }).from(bulkJobs).where(eq(bulkJobs.id, id));
    expect(index!.status).toBe("completed");
  });
});
