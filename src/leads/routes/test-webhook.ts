import { createRoute, z } from "@hono/zod-openapi";
import type { WebhookRow } from "../../db/schema-leads.js";
import { enqueueDelivery } from "../../delivery/index.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { IdParam, jsonContent, MutationSchema, ownerOf, recordId } from "../shared.js";
import { findWebhook } from "../webhooks.js";

/**
 * What a test delivery carries: the event's own shape with sample data and `test: true`, so a
 * receiver that validates real events accepts it and can tell it apart.
 */
function testPayload(hook: WebhookRow) {
  const at = new Date().toISOString();
  if (hook.event === "bulk_job_ended") {
    // The shape of src/bulk/end-event.ts's event, with a job that never existed.
    const data = {
      bulk_id: 0,
      bulk_type: "finder",
      name: "Test delivery",
      status: "completed",
      summary: "2 found, 1 not found.",
      completed_at: at,
    };
    return { type: "bulk.job.ended", timestamp: at, test: true, data };
  }
  const lead = {
    id: 0,
    email: "jane.doe@example.com",
    website: "https://example.com",
    company: "Example Inc",
    first_name: "Jane",
    last_name: "Doe",
  };
  return { test: true, data: { ...lead, phone: null, position: "Head of Sales", notes: "A test delivery", score: 90 } };
}

const route = createRoute({
  method: "post",
  path: "/webhooks/{id}/test",
  tags: ["Webhooks"],
  security,
  summary: "Send a test delivery to an enabled webhook (sample data, test: true; it appears in the delivery log)",
  request: { params: IdParam },
  responses: {
    200: jsonContent("Queued", MutationSchema.extend({ data: z.object({ delivery_id: z.string() }) })),
    409: ErrorResponses[400],
    ...ErrorResponses,
  },
});

export function registerTestWebhook(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const accountId = ownerOf(c);
    const hook = await findWebhook(c.env, accountId, recordId(c.req.valid("param").id, "webhook"));
    // The delivery system skips a disabled webhook's deliveries: a test of one would never be sent.
    if (hook.status !== "enabled")
      throw new ApiError(
        409,
        "invalid_state",
        `The webhook "${hook.name}" is disabled; enable it to send a test delivery.`,
      );
    const bulk = hook.event === "bulk_job_ended";
    const deliveryId = await enqueueDelivery(c.env, {
      accountId,
      kind: bulk ? "bulk_end" : "save_lead",
      url: hook.url,
      method: hook.method as "POST" | "PUT" | "PATCH",
      headers: JSON.parse(hook.headers) as Record<string, string>,
      payload: testPayload(hook),
      secretScope: bulk ? "bulk" : "webhooks",
      webhookId: hook.id,
    });
    return c.json(
      { status: true, message: `A test delivery to "${hook.name}" was queued.`, data: { delivery_id: deliveryId } },
      200,
    );
  });
}
