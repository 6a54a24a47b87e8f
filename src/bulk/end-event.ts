import { enqueueDelivery } from "../delivery/index.js";
import type { Env } from "../env.js";
import type { JobView } from "./job-view.js";

export const BULK_END_EVENT = "bulk.job.ended";

/**
 * Queues the signed end event (Standard Webhooks, the account's `bulk` secret) through the one
 * delivery system; its queue retries and dead-letters failed deliveries.
 */
export async function notifyJobEnd(env: Env, accountId: number, url: string, job: JobView) {
  const { preview: _preview, ...summary } = job;
  await enqueueDelivery(env, {
    accountId,
    kind: "bulk_end",
    url,
    secretScope: "bulk",
    payload: { type: BULK_END_EVENT, timestamp: new Date().toISOString(), data: summary },
  });
}
