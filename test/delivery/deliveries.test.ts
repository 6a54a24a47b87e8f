import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { db } from "../../src/db/client.js";
import { webhooks } from "../../src/db/schema-leads.js";
import { attemptsOf, enqueueDelivery, rotateSigningSecret, signingSecret } from "../../src/delivery/index.js";
import { consumeDeliveries, retryDelaySeconds, toDeliveryMessage } from "../../src/delivery/queue.js";
import { deliverOnce } from "../../src/delivery/send.js";
import { createAccount } from "../support/accounts.js";
import { eventually } from "../support/settle.js";
import { RECEIVER, receivedBy, releaseHeld, uniqueKey, waitForRequests } from "./support.js";

async function waitForOutcome(deliveryId: string, outcome: string) {
  let rows: Awaited<ReturnType<typeof attemptsOf>> = [];
  await eventually(
    async () => {
      rows = await attemptsOf(env, deliveryId);
      expect(rows.map((r) => r.outcome)).toContain(outcome);
    },
    { timeout: 20_000, interval: 100 },
  );
  return rows;
}

// Tests run with DELIVERY_RETRY_BASE_SECONDS=0 (vitest.config.ts), so retries follow at once.
describe("the deliveries queue", () => {
  it("delivers with the requested method and headers and a Standard Webhooks signature that verifies", async () => {
    const { accountId } = await createAccount();
    const key = uniqueKey();
    const id = await enqueueDelivery(env, {
      accountId,
      kind: "save_lead",
      url: `${RECEIVER}/ok/${key}`,
      method: "PUT",
      headers: { authorization: "Bearer receiver-token", "x-team": "sales" },
      payload: { data: { email: "ada@example.test" } },
      secretScope: "webhooks",
    });
    const [got] = await waitForRequests(key, 1);
    expect(got!.method).toBe("PUT");
    expect(got!.headers.authorization).toBe("Bearer receiver-token");
    expect(got!.headers["x-team"]).toBe("sales");
    expect(got!.headers["content-type"]).toBe("application/json");
    expect(got!.headers["webhook-id"]).toBe(id);
    expect(JSON.parse(got!.body)).toEqual({ data: { email: "ada@example.test" } });

    const secret = await signingSecret(env, accountId, "webhooks");
    expect(new Webhook(secret).verify(got!.body, got!.headers)).toEqual({ data: { email: "ada@example.test" } });
    // The bulk scope has its own secret, which must not verify a webhooks delivery.
    const bulkSecret = await signingSecret(env, accountId, "bulk");
    expect(() => new Webhook(bulkSecret).verify(got!.body, got!.headers)).toThrow();

    const rows = await waitForOutcome(id, "delivered");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      attempt: 1,
      outcome: "delivered",
      responseCode: 200,
      accountId,
      kind: "save_lead",
    });
  });

  it("stops after the third attempt when the receiver fails twice and then succeeds", async () => {
    const { accountId } = await createAccount();
    const key = uniqueKey();
    const id = await enqueueDelivery(env, {
      accountId,
      kind: "callback",
      url: `${RECEIVER}/flaky/${key}?fails=2`,
      payload: { n: 1 },
      secretScope: "webhooks",
    });
    const rows = await waitForOutcome(id, "delivered");
    expect(rows.map((r) => [r.attempt, r.outcome, r.responseCode])).toEqual([
      [1, "failed", 503],
      [2, "failed", 503],
      [3, "delivered", 200],
    ]);
    // Give a stray extra attempt time to show up before counting.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const got = await receivedBy(key);
    expect(got).toHaveLength(3);
    // Retries keep the delivery id, so a receiver can drop duplicates.
    expect(new Set(got.map((r) => r.headers["webhook-id"]))).toEqual(new Set([id]));
  }, 30_000);

  it("makes 1 + 3 attempts against a receiver that always fails, then dead-letters the delivery", async () => {
    const { accountId } = await createAccount();
    const key = uniqueKey();
    const id = await enqueueDelivery(env, {
      accountId,
      kind: "bulk_end",
      url: `${RECEIVER}/fail/${key}`,
      payload: { event: "bulk.completed" },
      secretScope: "bulk",
    });
    const rows = await waitForOutcome(id, "dead_lettered");
    expect(rows.map((r) => r.outcome)).toEqual(["failed", "failed", "failed", "failed", "dead_lettered"]);
    expect(rows.slice(0, 4).every((r) => r.responseCode === 500)).toBe(true);
    expect(await receivedBy(key)).toHaveLength(4);
  }, 30_000);

  it("does not send a save_lead delivery whose webhook was disabled after it was queued", async () => {
    const { accountId } = await createAccount();
    const key = uniqueKey();
    const [hook] = await db(env.DB)
      .insert(webhooks)
      .values({ accountId, name: "off", nameKey: "off", url: `${RECEIVER}/ok/${key}`, status: "disabled" })
      .returning();
    const id = await enqueueDelivery(env, {
      accountId,
      kind: "save_lead",
      url: hook!.url,
      payload: {},
      secretScope: "webhooks",
      webhookId: hook!.id,
    });
    const rows = await waitForOutcome(id, "skipped");
    expect(rows).toHaveLength(1);
    expect(await receivedBy(key)).toHaveLength(0);
  });
});

describe("one delivery attempt", () => {
  it("counts an answer slower than the attempt timeout as a failure", async () => {
    const { accountId } = await createAccount();
    const key = uniqueKey();
    const message = toDeliveryMessage({
      accountId,
      kind: "callback",
      url: `${RECEIVER}/held/${key}`,
      payload: {},
      secretScope: "webhooks",
    });
    const result = await deliverOnce(env, message, await signingSecret(env, accountId, "webhooks"), 200);
    expect(result.ok).toBe(false);
    expect(result.responseCode).toBeNull();
    expect(result.error).toMatch(/no answer within 200 ms/);
    // The attempt ended while the receiver still held its answer (if the request reached it at all
    // before the attempt gave up): it did not wait for it.
    expect((await receivedBy(key)).filter((r) => r.answered)).toEqual([]);
    await releaseHeld(key);
  });

  it("refuses to send when the host now resolves to a private address", async () => {
    const { accountId } = await createAccount();
    const message = toDeliveryMessage({
      accountId,
      kind: "callback",
      url: "https://intranet-hook.test/hook",
      payload: {},
      secretScope: "webhooks",
    });
    const result = await deliverOnce(env, message, await signingSecret(env, accountId, "webhooks"));
    expect(result).toMatchObject({ ok: false, responseCode: null });
    expect(result.error).toMatch(/refused before sending/);
  });

  it("retries a failed attempt with a delay that doubles each time", async () => {
    const slow = { ...env, DELIVERY_RETRY_BASE_SECONDS: "30" };
    expect([1, 2, 3].map((n) => retryDelaySeconds(slow, n))).toEqual([30, 60, 120]);
    expect(retryDelaySeconds({ ...env, DELIVERY_RETRY_BASE_SECONDS: undefined }, 1)).toBe(30);

    const { accountId } = await createAccount();
    const message = toDeliveryMessage({
      accountId,
      kind: "callback",
      url: `${RECEIVER}/fail/${uniqueKey()}`,
      payload: {},
      secretScope: "webhooks",
    });
    const batch = createMessageBatch("deliveries", [{ id: "m1", timestamp: new Date(), attempts: 2, body: message }]);
    // The test batch does not report delays, so the retry call itself is watched.
    const retry = vi.spyOn(batch.messages[0]!, "retry");
    const ctx = createExecutionContext();
    await consumeDeliveries(batch, slow);
    expect(retry).toHaveBeenCalledWith({ delaySeconds: 60 });
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([{ msgId: "m1" }]);
    expect(result.explicitAcks).toEqual([]);
  });
});

describe("signing secrets", () => {
  it("keeps one whsec_ secret per account and scope until it is rotated", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const first = await signingSecret(env, a.accountId, "webhooks");
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await signingSecret(env, a.accountId, "webhooks")).toBe(first);
    expect(await signingSecret(env, a.accountId, "bulk")).not.toBe(first);
    expect(await signingSecret(env, b.accountId, "webhooks")).not.toBe(first);

    const rotated = await rotateSigningSecret(env, a.accountId, "webhooks");
    expect(rotated).not.toBe(first);
    expect(await signingSecret(env, a.accountId, "webhooks")).toBe(rotated);
  });
});
