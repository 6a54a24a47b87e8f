import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { requestLogs } from "../../src/db/schema.js";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import {
  enqueueLogRow,
  LOG_WAIT_MS,
  REQUEST_LOG_QUEUE,
  type RequestLogMessage,
  type RequestLogPacket,
} from "../../src/platform/request-log-queue.js";
import { call, createAccount, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";

function rows(accountId: number, n: number): RequestLogMessage[] {
  return Array.from({ length: n }, (_, i) => ({
    requestId: crypto.randomUUID(),
    accountId,
    actorAccountId: accountId,
    apiKeyId: null,
    httpMethod: "GET",
    endpoint: "/v1/me",
    uri: `/v1/me?n=${i}`,
    statusCode: 200,
    durationMs: 1,
    createdAt: Date.now() + i,
  }));
}

const messages = (bodies: RequestLogMessage[], attempts = 1) =>
  bodies.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts, body }));

/** A message's rows: a packet's, or the one row of a message sent before rows were packed. */
const rowsOf = (body: RequestLogMessage | RequestLogPacket) => ("rows" in body ? body.rows : [body]);

/** An env whose request-logs queue records the rows of each message it is handed, once `held` resolves. */
function recordingQueue(held: Promise<void> = Promise.resolve()) {
  const sent: RequestLogMessage[][] = [];
  const packets: RequestLogPacket[] = [];
  const record = (body: RequestLogMessage | RequestLogPacket) => {
    if ("rows" in body) packets.push(body);
    sent.push(rowsOf(body));
  };
  const queue = {
    send: async (body: RequestLogMessage | RequestLogPacket) => {
      await held;
      record(body);
    },
    sendBatch: async (batch: { body: RequestLogMessage | RequestLogPacket }[]) => {
      await held;
      for (const m of batch) record(m.body);
    },
  } as unknown as Queue;
  return { sent, packets, queueEnv: { ...(env as Env), REQUEST_LOGS: queue } };
}

const logged = (accountId: number) =>
  db(env.DB).select().from(requestLogs).where(eq(requestLogs.accountId, accountId)).all();

describe("request-log rows through the request-logs queue", () => {
  it("shows a request on /v1/logs within seconds, written by the queue consumer", async () => {
    const a = await createAccount();
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);
    let body: any;
    await settle(
      async () => {
        body = await json(await call("/v1/logs", { headers: a.headers }));
        return body.data.some((l: any) => l.endpoint === "/v1/me");
      },
      { timeout: 5_000, interval: 50 },
    );
    expect(body.data.find((l: any) => l.endpoint === "/v1/me")).toMatchObject({ http_method: "GET", status_code: 200 });
    // The row carries the id request-log-queue.ts gives every row (the old per-request INSERT had none).
    const row = (await logged(a.accountId)).find((r) => r.endpoint === "/v1/me");
    expect(row?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("writes a whole batch at once and inserts nothing twice when the batch is redelivered", async () => {
    const a = await createAccount();
    const bodies = rows(a.accountId, 23);
    for (const attempts of [1, 2]) {
      const batch = createMessageBatch(REQUEST_LOG_QUEUE, messages(bodies, attempts));
      const ctx = createExecutionContext();
      await worker.queue!(batch as MessageBatch, env as Env, ctx);
      const result = await getQueueResult(batch, ctx);
      expect(result.ackAll).toBe(true);
      expect(result.retryBatch.retry).toBe(false);
    }
    const written = await logged(a.accountId);
    expect(written).toHaveLength(23);
    expect(new Set(written.map((r) => r.requestId)).size).toBe(23);
  });

  it("writes every column of a row as given, text, numbers, nulls and the cost flag alike, and batches of more than 100 rows whole", async () => {
    const a = await createAccount();
    const full: RequestLogMessage = {
      requestId: crypto.randomUUID(),
      accountId: a.accountId,
      actorAccountId: a.accountId + 1,
      apiKeyId: 7,
      httpMethod: "GET",
      endpoint: "/v1/phone-validator",
      uri: "/v1/phone-validator?phone=%2B33612345678",
      statusCode: 200,
      durationMs: 12,
      type: "Phone Validator",
      usageCategory: "phones",
      cost: true,
      source: "bulk",
      ipAddress: "203.0.113.9",
      userAgent: 'café-client/1.0 "quoted"',
      country: "FR",
      oauthClientId: "client-1",
      createdAt: 1_700_000_000_123,
    };
    const bare = { ...rows(a.accountId, 1)[0]!, cost: false };
    const batch = createMessageBatch(REQUEST_LOG_QUEUE, messages([full, bare, ...rows(a.accountId, 130)]));
    const ctx = createExecutionContext();
    await worker.queue!(batch as MessageBatch, env as Env, ctx);
    expect((await getQueueResult(batch, ctx)).ackAll).toBe(true);
    const written = await logged(a.accountId);
    expect(written).toHaveLength(132);
    const { id: _id, ...stored } = written.find((r) => r.requestId === full.requestId)!;
    expect(stored).toEqual(full);
    const storedBare = written.find((r) => r.requestId === bare.requestId)!;
    expect(storedBare).toMatchObject({
      apiKeyId: null,
      type: null,
      usageCategory: null,
      cost: false,
      source: "api",
      ipAddress: null,
      userAgent: null,
      country: null,
      oauthClientId: null,
    });
  });

  it("retries the whole batch when D1 refuses it, so no row is lost", async () => {
    const a = await createAccount();
    const bodies = rows(a.accountId, 7);
    const brokenDb = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "batch") return async () => Promise.reject(new Error("D1 is down"));
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const failing = createMessageBatch(REQUEST_LOG_QUEUE, messages(bodies));
    const ctx = createExecutionContext();
    await worker.queue!(failing as MessageBatch, { ...(env as Env), DB: brokenDb }, ctx);
    const failed = await getQueueResult(failing, ctx);
    expect(failed.ackAll).toBe(false);
    expect(failed.retryBatch.retry).toBe(true);
    expect(await logged(a.accountId)).toHaveLength(0);

    // The redelivery (D1 back) writes every row.
    const again = createMessageBatch(REQUEST_LOG_QUEUE, messages(bodies, 2));
    const ctx2 = createExecutionContext();
    await worker.queue!(again as MessageBatch, env as Env, ctx2);
    expect((await getQueueResult(again, ctx2)).ackAll).toBe(true);
    expect(await logged(a.accountId)).toHaveLength(7);
  });

  it("writes the rows of packets and of single-row messages alike, once each when the batch is redelivered", async () => {
    const a = await createAccount();
    const [single, ...packed] = rows(a.accountId, 9);
    const bodies: (RequestLogMessage | RequestLogPacket)[] = [
      single!,
      { rows: packed.slice(0, 5) },
      { rows: packed.slice(5) },
    ];
    for (const attempts of [1, 2]) {
      const batch = createMessageBatch(
        REQUEST_LOG_QUEUE,
        bodies.map((body, i) => ({ id: `p${i}`, timestamp: new Date(), attempts, body })),
      );
      const ctx = createExecutionContext();
      await worker.queue!(batch as MessageBatch, env as Env, ctx);
      expect((await getQueueResult(batch, ctx)).ackAll).toBe(true);
    }
    const written = await logged(a.accountId);
    expect(written.map((r) => r.requestId).sort()).toEqual([single!, ...packed].map((r) => r.requestId).sort());
  });

  it("hands the rows of requests ending together to the queue in one message, whose sender stays open until the queue accepted it", async () => {
    const a = await createAccount();
    let release!: () => void;
    const { sent, packets, queueEnv } = recordingQueue(new Promise<void>((resolve) => (release = resolve)));
    const calls = rows(a.accountId, 5).map((row) => enqueueLogRow(queueEnv, row));
    let settled = 0;
    for (const c of calls) void c.then(() => settled++);
    await new Promise((resolve) => setTimeout(resolve, LOG_WAIT_MS * 3));
    // The batch is on its way but not accepted yet: the call sending it has not ended (the rows
    // are never only in the memory of requests that are over).
    expect(settled).toBeLessThan(5);
    release();
    await Promise.all(calls);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toHaveLength(5);
    expect(packets).toHaveLength(1);
  });

  it("sets one timer per batch: a row joining an open batch is handed over at once, and goes out with the batch", async () => {
    const a = await createAccount();
    const { sent, queueEnv } = recordingQueue();
    const [first, second] = rows(a.accountId, 2);
    let openingDone = false;
    const opening = enqueueLogRow(queueEnv, first!).then(() => (openingDone = true));
    await enqueueLogRow(queueEnv, second!);
    // Handed over before the batch's timer ran out: the call opening the batch has not ended yet.
    expect(openingDone).toBe(false);
    expect(sent).toHaveLength(0);
    await opening;
    expect(sent).toEqual([[first, second]]);
  });

  it("keeps every message under the queue's 128 KB, however long or escaped its rows' text", async () => {
    const a = await createAccount();
    const { sent, packets, queueEnv } = recordingQueue();
    // Short rows whose text JSON escapes 6 to 1, and long ones (a 1 KB address, a 512-character agent).
    const batch = rows(a.accountId, 300).map((row, i) =>
      i % 3
        ? { ...row, userAgent: "\u0001".repeat(500) }
        : { ...row, uri: `/v1/me?q=${"x".repeat(1_000)}`, userAgent: "a".repeat(512) },
    );
    await Promise.all(batch.map((row) => enqueueLogRow(queueEnv, row)));
    expect(sent.flat().map((r) => r.requestId)).toEqual(batch.map((r) => r.requestId));
    expect(packets).toHaveLength(sent.length);
    for (const packet of packets) expect(JSON.stringify(packet).length).toBeLessThanOrEqual(128 * 1024);
  });

  it("writes every row of a refused message straight to D1", async () => {
    const a = await createAccount();
    const refusingQueue = {
      send: async () => Promise.reject(new Error("queue unavailable")),
      sendBatch: async () => Promise.reject(new Error("queue unavailable")),
    } as unknown as Queue;
    const batch = rows(a.accountId, 3);
    await Promise.all(batch.map((row) => enqueueLogRow({ ...(env as Env), REQUEST_LOGS: refusingQueue }, row)));
    expect((await logged(a.accountId)).map((r) => r.requestId).sort()).toEqual(batch.map((r) => r.requestId).sort());
  });

  it("writes the row straight to D1 when the queue refuses it", async () => {
    const a = await createAccount();
    const [row] = rows(a.accountId, 1);
    const refusingQueue = {
      send: async () => Promise.reject(new Error("queue unavailable")),
      sendBatch: async () => {},
    } as unknown as Queue;
    await enqueueLogRow({ ...(env as Env), REQUEST_LOGS: refusingQueue }, row!);
    const written = await logged(a.accountId);
    expect(written.map((r) => r.requestId)).toEqual([row!.requestId]);
  });
});
