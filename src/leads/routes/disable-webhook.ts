import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { IdParam, jsonContent, MutationSchema, ownerOf, recordId } from "../shared.js";
import { renderWebhook, setWebhookStatus, WebhookSchema } from "../webhooks.js";

const route = createRoute({
  method: "post",
  path: "/webhooks/{id}/disable",
  tags: ["Webhooks"],
  security,
  summary: "Disable a webhook (a disabled webhook never fires, queued deliveries included)",
  request: { params: IdParam },
  responses: { 200: jsonContent("Disable", MutationSchema.extend({ data: WebhookSchema })), ...ErrorResponses },
});

export function registerDisableWebhook(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const row = await setWebhookStatus(c.env, ownerOf(c), recordId(c.req.valid("param").id, "webhook"), "disabled");
    return c.json({ status: true, message: `The webhook "${row.name}" is disabled.`, data: renderWebhook(row) }, 200);
  });
}
