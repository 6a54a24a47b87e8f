import { and, eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { deliveryAttempts } from "../db/schema-delivery.js";
import { webhooks } from "../db/schema-leads.js";
import type { Env } from "../env.js";
import { logError } from "../request-context.js";
import { recordAttempt } from "./log.js";
import { signingSecret } from "./secrets.js";
import { deliverOnce } from "./send.js";
import { type DeliveryMessage, DeliveryMessageSchema, type DeliveryRequest } from "./types.js";

export { DELIVERY_DEAD_LETTER_QUEUE, DELIVERY_QUEUE } from "./queue-names.js";
/** Queue messages are capped at 128 KB; this leaves room for the envelope. */
export const MAX_DELIVERY_BODY_BYTES = 120_000;
const DEFAULT_RETRY_BASE_SECONDS = 30;
/** Queues refuse delays beyond 12 hours. */
const MAX_RETRY_DELAY_SECONDS = 43_200;

export class DeliveryTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`a delivery body of ${bytes} bytes is over the ${MAX_DELIVERY_BODY_BYTES}-byte limit`);
    this.name = "DeliveryTooLargeError";
  }
}

export const newDeliveryId = () => `msg_${crypto.randomUUID().replaceAll("-", "")}`;

/** Freezes a request into the queue message (body serialized once, so every attempt signs the same bytes). */
export function toDeliveryMessage(req: DeliveryRequest, id = newDeliveryId(), now = Date.now()): DeliveryMessage {
  const body = JSON.stringify(req.payload);
  const bytes = new TextEncoder().encode(body).byteLength;
  if (bytes > MAX_DELIVERY_BODY_BYTES) throw new DeliveryTooLargeError(bytes);
  return {
    v: 1,
    id,
    accountId: req.accountId,
    kind: req.kind,
    url: req.url,
    method: req.method ?? "POST",
    headers: req.headers ?? {},
    body,
    secretScope: req.secretScope,
    webhookId: req.webhookId ?? null,
    enqueuedAt: now,
  };
}

/** Queues one delivery on the `deliveries` queue; returns the delivery id (also the webhook-id header). */
export async function enqueueDelivery(env: Env, req: DeliveryRequest): Promise<string> {
  if (!env.DELIVERY_QUEUE) throw new Error("the DELIVERY_QUEUE binding is missing (wrangler.toml)");
  const message = toDeliveryMessage(req);
  await env.DELIVERY_QUEUE.send(message, { contentType: "json" });
  return message.id;
}

/** Exponential backoff: base, 2x base, 4x base ... after the 1st, 2nd, 3rd failed attempt. */
export function retryDelaySeconds(env: Env, attempts: number): number {
  const configured = Number(env.DELIVERY_RETRY_BASE_SECONDS);
  const base =
    env.DELIVERY_RETRY_BASE_SECONDS !== undefined && Number.isFinite(configured) && configured >= 0
      ? configured
      : DEFAULT_RETRY_BASE_SECONDS;
  return Math.min(MAX_RETRY_DELAY_SECONDS, Math.round(base * 2 ** Math.max(0, attempts - 1)));
}

async function alreadyDelivered(env: Env, deliveryId: string): Promise<boolean> {
  const [row] = await db(env.DB)
    .select({ id: deliveryAttempts.id })
    .from(deliveryAttempts)
    .where(and(eq(deliveryAttempts.deliveryId, deliveryId), eq(deliveryAttempts.outcome, "delivered")))
    .limit(1);
  return !!row;
}

/** A save_lead delivery whose webhook was disabled or deleted since it was queued is not sent. */
async function webhookStillEnabled(env: Env, message: DeliveryMessage): Promise<boolean> {
  if (message.webhookId === null) return true;
  const [row] = await db(env.DB)
    .select({ status: webhooks.status })
    .from(webhooks)
    .where(and(eq(webhooks.id, message.webhookId), eq(webhooks.accountId, message.accountId)))
    .limit(1);
  return row?.status === "enabled";
}

async function handleOne(env: Env, message: Message<unknown>): Promise<void> {
  const parsed = DeliveryMessageSchema.safeParse(message.body);
  if (!parsed.success) {
    logError("dropping malformed delivery message", message.id);
    message.ack();
    return;
  }
  const delivery = parsed.data;
  // The queue can hand the same message over twice: a delivery that already succeeded is not resent.
  if (await alreadyDelivered(env, delivery.id)) {
    message.ack();
    return;
  }
  if (!(await webhookStillEnabled(env, delivery))) {
    await recordAttempt(env, delivery, message.attempts, "skipped", {
      responseCode: null,
      durationMs: 0,
      error: "the webhook is disabled or was deleted",
    });
    message.ack();
    return;
  }
  const secret = await signingSecret(env, delivery.accountId, delivery.secretScope);
  const result = await deliverOnce(env, delivery, secret);
  await recordAttempt(env, delivery, message.attempts, result.ok ? "delivered" : "failed", result);
  if (result.ok) message.ack();
  else message.retry({ delaySeconds: retryDelaySeconds(env, message.attempts) });
}

/** Consumer of `deliveries`: one attempt per message; failures go back with a growing delay, then to the DLQ. */
export async function consumeDeliveries(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  // Attempts run side by side so one slow receiver does not hold up the others in the batch.
  await Promise.all(
    batch.messages.map((message) =>
      handleOne(env, message).catch((err) => {
        logError("delivery attempt crashed", message.id, err);
        message.retry({ delaySeconds: retryDelaySeconds(env, message.attempts) });
      }),
    ),
  );
}

/** Consumer of `deliveries-dlq`: marks the delivery as given up in its log, where its owner can see it. */
export async function consumeDeadDeliveries(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = DeliveryMessageSchema.safeParse(message.body);
    if (parsed.success) {
      const tried = await db(env.DB).$count(deliveryAttempts, eq(deliveryAttempts.deliveryId, parsed.data.id));
      await recordAttempt(env, parsed.data, tried, "dead_lettered", {
        responseCode: null,
        durationMs: 0,
        error: "gave up after the last retry",
      });
    } else {
      logError("malformed message in the delivery dead-letter queue", message.id);
    }
    message.ack();
  }
}
