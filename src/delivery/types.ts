import { z } from "@hono/zod-openapi";

export type DeliveryKind = "save_lead" | "callback" | "bulk_end";
export type SecretScope = "webhooks" | "bulk";

export interface DeliveryRequest {
  accountId: number;
  kind: DeliveryKind;
  /** Already checked with assertDeliverableUrl. */
  url: string;
  /** Default POST. */
  method?: "POST" | "PUT" | "PATCH";
  /** Extra headers (from a webhook configuration). */
  headers?: Record<string, string>;
  /** JSON body. */
  payload: unknown;
  /** Which per-account Standard Webhooks secret signs it. */
  secretScope: SecretScope;
  /** Webhook configuration id, for its delivery log. */
  webhookId?: number;
}

/** What travels on the `deliveries` queue: the request, frozen, with its id and serialized body. */
export const DeliveryMessageSchema = z.object({
  v: z.literal(1),
  id: z.string().min(1),
  accountId: z.number().int(),
  kind: z.enum(["save_lead", "callback", "bulk_end"]),
  url: z.string().url(),
  method: z.enum(["POST", "PUT", "PATCH"]),
  headers: z.record(z.string(), z.string()),
  /** The JSON body exactly as signed and sent. */
  body: z.string(),
  secretScope: z.enum(["webhooks", "bulk"]),
  webhookId: z.number().int().nullable(),
  enqueuedAt: z.number(),
});
export type DeliveryMessage = z.infer<typeof DeliveryMessageSchema>;

/** Outcome of one attempt, as written to the attempt log. */
export type AttemptOutcome = "delivered" | "failed" | "skipped" | "dead_lettered";
