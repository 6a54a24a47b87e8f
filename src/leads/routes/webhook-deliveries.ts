import { createRoute, z } from "@hono/zod-openapi";
import type { DeliveryAttemptRow } from "../../db/schema-delivery.js";
import { listAttempts } from "../../delivery/index.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { rfc3339 } from "../../platform/time.js";
import { ClassicMetaSchema, classicMeta, IdParam, jsonContent, ownerOf, pageQuery, recordId } from "../shared.js";
import { DeliveryAttemptSchema, findWebhook } from "../webhooks.js";

export const DeliveryLogSchema = z
  .object({ data: z.object({ deliveries: z.array(DeliveryAttemptSchema), meta: ClassicMetaSchema }) })
  .openapi("DeliveryLog");

export function renderAttempt(row: DeliveryAttemptRow): z.infer<typeof DeliveryAttemptSchema> {
  return {
    id: row.id,
    delivery_id: row.deliveryId,
    kind: row.kind as z.infer<typeof DeliveryAttemptSchema>["kind"],
    webhook_id: row.webhookId,
    url: row.url,
    attempt: row.attempt,
    status: row.outcome as z.infer<typeof DeliveryAttemptSchema>["status"],
    response_code: row.responseCode,
    duration_ms: row.durationMs,
    error: row.error,
    created_at: rfc3339(row.createdAt),
  };
}

const route = createRoute({
  method: "get",
  path: "/webhooks/{id}/deliveries",
  tags: ["Webhooks"],
  security,
  summary: "Delivery log of a webhook: every attempt with its status, duration and response code, newest first",
  request: { params: IdParam, query: z.object(pageQuery(20)) },
  responses: { 200: jsonContent("Attempts", DeliveryLogSchema), ...ErrorResponses },
});

export function registerWebhookDeliveries(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const accountId = ownerOf(c);
    const hook = await findWebhook(c.env, accountId, recordId(c.req.valid("param").id, "webhook"));
    const { page, limit } = c.req.valid("query");
    const { rows, total } = await listAttempts(c.env, accountId, { webhookId: hook.id, page, limit });
    return c.json({ data: { deliveries: rows.map(renderAttempt), meta: classicMeta(total, page, limit) } }, 200);
  });
}
