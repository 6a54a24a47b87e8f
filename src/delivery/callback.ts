import { z } from "@hono/zod-openapi";
import type { Env } from "../env.js";
import { logError } from "../request-context.js";
import { enqueueDelivery } from "./queue.js";
import { assertDeliverableUrl } from "./url-check.js";

/**
 * Per-request callbacks (`webhook_url`): the API answers at once; the same `data` is POSTed to the
 * URL afterwards through the deliveries queue, as `{data, meta: {endpoint, timestamp}}`, signed
 * with the account's "webhooks" secret and retried like every delivery.
 */

export const CALLBACK_PARAM = "webhook_url";

export const WebhookUrlParam = z.string().optional().openapi({
  description:
    "HTTPS URL that also receives the answer, POSTed asynchronously as {data, meta: {endpoint, timestamp}} with Standard Webhooks signature headers; retried up to 3 times with exponential backoff. The answer does not wait for it.",
  example: "https://example.com/hooks/contact-intelligence",
});

/** Checks a `webhook_url` before the call runs, so a refused URL answers 400 and costs nothing. */
export async function checkCallbackUrl(env: Env, raw: unknown): Promise<URL | undefined> {
  if (raw === undefined || raw === "") return undefined;
  return assertDeliverableUrl(env, String(raw), CALLBACK_PARAM);
}

/**
 * Queues the callback for a successful answer (its body as sent), off the response path. Only 200
 * answers are sent: an error (402, 429, 404...) is the caller's to see, not a result. The body is
 * taken as an object, not read back from the Response: a cloned body stalls until the client has
 * read the original.
 */
export function scheduleCallback(
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
  callback: { accountId: number; url: URL; endpoint: string; body: unknown; answeredAt?: Date },
): void {
  const timestamp = (callback.answeredAt ?? new Date()).toISOString();
  const body = callback.body;
  const data = body && typeof body === "object" && "data" in body ? (body as { data: unknown }).data : body;
  waitUntil(
    enqueueDelivery(env, {
      accountId: callback.accountId,
      kind: "callback",
      url: callback.url.href,
      payload: { data, meta: { endpoint: callback.endpoint, timestamp } },
      secretScope: "webhooks",
    }).catch((err) => logError("callback not queued", callback.endpoint, err)),
  );
}
