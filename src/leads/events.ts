import { and, eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { type LeadRow, webhooks } from "../db/schema-leads.js";
import { enqueueDelivery } from "../delivery/index.js";
import type { Env } from "../env.js";
import { logError } from "../request-context.js";
import { saveLeadPayload } from "./lead.js";

/**
 * save_lead: a saved or updated lead goes to every enabled save_lead webhook of the account, with
 * that webhook's method and headers. Runs off the response path; a webhook disabled before its
 * delivery is attempted is skipped by the consumer.
 */
export async function emitSaveLead(env: Env, lead: LeadRow): Promise<string[]> {
  const targets = await db(env.DB)
    .select()
    .from(webhooks)
    .where(
      and(eq(webhooks.accountId, lead.accountId), eq(webhooks.status, "enabled"), eq(webhooks.event, "save_lead")),
    );
  const payload = saveLeadPayload(lead);
  return Promise.all(
    targets.map((hook) =>
      enqueueDelivery(env, {
        accountId: lead.accountId,
        kind: "save_lead",
        url: hook.url,
        method: hook.method as "POST" | "PUT" | "PATCH",
        headers: JSON.parse(hook.headers) as Record<string, string>,
        payload,
        secretScope: "webhooks",
        webhookId: hook.id,
      }),
    ),
  );
}

export function emitSaveLeadLater(env: Env, waitUntil: (p: Promise<unknown>) => void, lead: LeadRow): void {
  waitUntil(emitSaveLead(env, lead).catch((err) => logError("save_lead not queued", lead.id, err)));
}
