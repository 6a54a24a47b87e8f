import { and, eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { webhooks } from "../db/schema-leads.js";
import { enqueueDelivery } from "../delivery/index.js";
import type { Env } from "../env.js";
import type { JobView } from "./job-view.js";

export const BULK_END_EVENT = "bulk.job.ended";
/** The account webhook event (POST /v1/webhooks) that receives the end events of jobs created with notify=true. */
export const BULK_END_WEBHOOK_EVENT = "bulk_job_ended";

/** The account's enabled webhooks for bulk end events. */
export function bulkEndWebhooks(env: Env, accountId: number) {
  return db(env.DB)
    .select()
    .from(webhooks)
    .where(
      and(
        eq(webhooks.accountId, accountId),
        eq(webhooks.status, "enabled"),
        eq(webhooks.event, BULK_END_WEBHOOK_EVENT),
      ),
    );
}

/**
 * Queues the signed end event (Standard Webhooks, the account's `bulk` secret) through the one
 * delivery system, whose queue retries and dead-letters failed deliveries: to the job's
 * webhook_url, and with notify=true to each enabled account webhook of the bulk_job_ended event
 * (with that webhook's method and headers).
 */
export async function notifyJobEnd(
  env: Env,
  job: { accountId: number; webhookUrl: string | null; notify: boolean },
  view: JobView,
) {
  const { preview: _preview, ...summary } = view;
  const payload = { type: BULK_END_EVENT, timestamp: new Date().toISOString(), data: summary };
  if (job.webhookUrl)
    await enqueueDelivery(env, {
      accountId: job.accountId,
      kind: "bulk_end",
      url: job.webhookUrl,
      secretScope: "bulk",
      payload,
    });
  if (!job.notify) return;
  for (const hook of await bulkEndWebhooks(env, job.accountId)) {
    await enqueueDelivery(env, {
      accountId: job.accountId,
      kind: "bulk_end",
      url: hook.url,
      method: hook.method as "POST" | "PUT" | "PATCH",
      headers: JSON.parse(hook.headers) as Record<string, string>,
      secretScope: "bulk",
      payload,
      webhookId: hook.id,
    });
  }
}
