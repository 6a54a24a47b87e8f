import { z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { type WebhookRow, webhooks } from "../db/schema-leads.js";
import type { Env } from "../env.js";
import { rfc3339 } from "../platform/time.js";
import { notFound } from "./shared.js";

/** Webhook configurations per account; deliveries go through src/delivery. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
export const WEBHOOK_METHODS = ["POST", "PUT", "PATCH"] as const;
/** save_lead: a lead saved or updated; bulk_job_ended: a bulk job created with notify=true ended (src/bulk/end-event.ts). */
export const WEBHOOK_EVENTS = ["save_lead", "bulk_job_ended"] as const;
export const WEBHOOK_STATUSES = ["enabled", "disabled"] as const;

/** Headers the delivery system sets itself; a configuration may not replace them. */
const RESERVED_HEADERS = /^(content-type|content-length|host|user-agent|transfer-encoding|connection|webhook-.*)$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

export const WebhookHeadersSchema = z
  .record(
    z.string(),
    z
      .string()
      .max(1_000)
      .regex(/^[^\r\n]*$/, { message: "header values cannot contain line breaks" }),
  )
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > 20) ctx.addIssue({ code: "custom", message: "at most 20 headers" });
    for (const name of names) {
      if (!HEADER_NAME.test(name)) ctx.addIssue({ code: "custom", path: [name], message: "not a valid header name" });
      else if (RESERVED_HEADERS.test(name))
        ctx.addIssue({ code: "custom", path: [name], message: "this header is set by the delivery system" });
    }
  })
  .openapi({
    description: "Extra headers sent with every delivery, e.g. an authorization header",
    example: { Authorization: "Bearer my-receiver-token" },
  });

export const WebhookSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    url: z.string(),
    method: z.enum(WEBHOOK_METHODS),
    headers: z.record(z.string(), z.string()),
    status: z.enum(WEBHOOK_STATUSES),
    event: z.enum(WEBHOOK_EVENTS),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Webhook");
export type Webhook = z.infer<typeof WebhookSchema>;

export function renderWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    method: row.method as Webhook["method"],
    headers: JSON.parse(row.headers) as Record<string, string>,
    status: row.status as Webhook["status"],
    event: row.event as Webhook["event"],
    created_at: rfc3339(row.createdAt),
    updated_at: rfc3339(row.updatedAt),
  };
}

export async function findWebhook(env: Env, accountId: number, id: number): Promise<WebhookRow> {
  const [row] = await db(env.DB)
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.accountId, accountId), eq(webhooks.id, id)))
    .limit(1);
  if (!row) throw notFound("webhook", id);
  return row;
}

export async function setWebhookStatus(
  env: Env,
  accountId: number,
  id: number,
  status: Webhook["status"],
): Promise<WebhookRow> {
  const hook = await findWebhook(env, accountId, id);
  const [row] = await db(env.DB)
    .update(webhooks)
    .set({ status, updatedAt: Date.now() })
    .where(and(eq(webhooks.id, hook.id), eq(webhooks.accountId, accountId)))
    .returning();
  if (!row) throw notFound("webhook", hook.id); // deleted since it was read above
  return row;
}

export const WebhookNameSchema = z.string().trim().min(1).max(100);
export const WebhookUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(2_000)
  .openapi({ description: "HTTPS URL that receives the events", example: "https://example.com/hooks/leads" });

export const DeliveryAttemptSchema = z
  .object({
    id: z.number().int(),
    delivery_id: z.string().openapi({ description: "Also sent as the webhook-id header; the same on every retry" }),
    kind: z.enum(["save_lead", "callback", "bulk_end"]),
    webhook_id: z.number().int().nullable(),
    url: z.string(),
    attempt: z.number().int(),
    status: z
      .enum(["delivered", "failed", "skipped", "dead_lettered"])
      .openapi({ description: "dead_lettered: retries exhausted, the delivery was given up" }),
    response_code: z.number().int().nullable(),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("DeliveryAttempt");
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;
