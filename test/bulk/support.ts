import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { parse } from "csv-parse/sync";
import { expect } from "vitest";
import { processChunk } from "../../src/bulk/consumer.js";
import type { BulkJob } from "../../src/bulk/job-object.js";
import { jobStub } from "../../src/bulk/jobs.js";
import { storeCrawl } from "../../src/engine/index/store.js";
import { batchMemo } from "../../src/engine/memo.js";
import { crawlFirstPass } from "../../src/engine/web/crawl/crawler.js";
import type { Env } from "../../src/env.js";
import { LimiterClient } from "../../src/limits/limiter-client.js";
import type { LimiterMessage } from "../../src/limits/limiter-messages.js";
import { call, json, type TestAccount } from "../support/accounts.js";
import { settle } from "../support/settle.js";

export const FINDER_CSV = [
  "First Name,Last Name,Company Domain",
  "Jane,Cooper,acme-widgets.test",
  "Ada,Lovelace,generic-only.test",
  "Nobody,Atall,gmail.com",
  ",,acme-widgets.test",
  "Jörg,Müller,blau-gmbh.test",
].join("\r\n");

export function csvForm(
  csv: string | Uint8Array,
  fields: Record<string, string>,
  filename = "people.csv",
  type = "text/csv",
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("file", new File([csv], filename, { type }));
  return form;
}

export async function createJob(account: TestAccount, type: string, body: FormData | Record<string, unknown>) {
  const init: RequestInit =
    body instanceof FormData
      ? { method: "POST", headers: account.headers, body }
      : {
          method: "POST",
          headers: { ...account.headers, "content-type": "application/json" },
          body: JSON.stringify(body),
        };
  return call(`/v1/bulk/${type}`, init);
}

export async function createdId(res: Response): Promise<number> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.data.id as number;
}

export async function getJob(account: TestAccount, type: string, id: number) {
  const res = await call(`/v1/bulk/${type}/${id}`, { headers: account.headers });
  return { res, job: (await json(res)).data };
}

/** Polls until the job leaves pending/running (rows flow through the real local queue). */
export async function waitForEnd(account: TestAccount, type: string, id: number, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { job } = await getJob(account, type, id);
    if (job.status !== "running" && job.status !== "pending") return job;
    if (Date.now() > deadline)
      throw new Error(`job ${id} still ${job.status} (${job.processed} rows) after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const act = (account: TestAccount, method: string, path: string, body?: unknown) =>
  call(path, {
    method,
    headers: { ...account.headers, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

/** Parses a CSV answer with the same parser the service reads uploads with. */
export function parseCsv(text: string): string[][] {
  return parse(text, { bom: true, relax_column_count: true }) as string[][];
}

/**
 * One delivery of a chunk, run straight through the consumer, that dies right after it recorded
 * its rows: the account's limiter never receives its billing (every message carrying a
 * settlement is lost on the way), so the billing stays with the job's object.
 */
export async function deliverAndDieBeforeBilling(base: Env, jobId: number, chunk: number, plan: string, run = 1) {
  const ns = base.ACCOUNT_LIMITER;
  const lossy = {
    ...base,
    ACCOUNT_LIMITER: {
      idFromName: (name: string) => ns.idFromName(name),
      get: (id: DurableObjectId) => {
        const stub = ns.get(id) as unknown as Record<string, (...args: unknown[]) => unknown>;
        return new Proxy(stub, {
          get: (target, prop) =>
            prop === "exchange"
              ? (msg: LimiterMessage) =>
                  msg.settlements?.length ? Promise.reject(new Error("the delivery died")) : target.exchange!(msg)
              : target[prop as string],
        });
      },
    },
  } as unknown as Env;
  const ctx = createExecutionContext();
  await expect(
    processChunk(
      lossy,
      ctx,
      { jobId, chunk, run },
      async () => plan,
      batchMemo(),
      new LimiterClient({ giveUpMs: 0, drainBudgetMs: 50 }),
    ),
  ).rejects.toThrow(/not decided yet/);
}

/** Makes every billing the job holds old enough for its alarm to send it. */
export async function ageBilling(jobId: number) {
  await runInDurableObject(jobStub(env, jobId), async (_instance: BulkJob, state) => {
    state.storage.sql.exec(`UPDATE billing SET at = 0`);
  });
}

/** Launches a job through an object whose queue loses every message: the test delivers its chunks itself (as a crash between send and delivery would leave them). */
export async function launchLosingMessages(account: TestAccount, id: number) {
  await runInDurableObject(jobStub(env, id), async (instance: BulkJob) => {
    const o = instance as unknown as { env: Env };
    const lost = async () => {};
    o.env = { ...o.env, BULK_QUEUE: { send: lost, sendBatch: lost } as unknown as Env["BULK_QUEUE"] };
    await instance.launch(Date.now(), account.accountId);
  });
}

/** A finder file of 30 rows that are all found (15 first names × Baker and Fischer at acme-widgets.test): more than the free plan's 25 search credits. */
export function thirtyFoundFinderRows(): string[][] {
  const first = [
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
    "Marta",
    "Nils",
    "Olga",
  ];
  return [
    ["domain", "first_name", "last_name"],
    ...first.flatMap((f) => [
      ["acme-widgets.test", f, "Baker"],
      ["acme-widgets.test", f, "Fischer"],
    ]),
  ];
}

/**
 * The site read into the index before a job whose subject is not the crawl: its rows then find it
 * indexed and never meet the crawler's wall-time limits (3 s for a site's first host), which a
 * loaded machine can miss, and a failed crawl would stand for every row for 10 minutes. Read again
 * until it answers (the first pass itself, so a miss marks nothing failed).
 */
export async function indexedBeforehand(domain: string): Promise<void> {
  await settle(
    async () => {
      const outcome = await crawlFirstPass(env as unknown as Env, domain);
      if (!outcome.origin) return false;
      await storeCrawl(env as unknown as Env, {
        domain,
        pages: outcome.pages,
        status: "done",
        error: null,
        now: Date.now(),
      });
      return true;
    },
    { timeout: 40_000 },
  );
}
