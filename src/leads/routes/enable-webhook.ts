import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { IdParam, jsonContent, MutationSchema, ownerOf, recordId } from "../shared.js";
import { renderWebhook, setWebhookStatus, WebhookSchema } from "../webhooks.js";

const route = createRoute({
  method: "post",
  path: "/webhooks/{id}/enable",
  tags: ["Webhooks"],
  security,
  summary: "Enable a webhook",
  request: { params: IdParam },
  responses: { 200: jsonContent("Enable", MutationSchema.extend({ data: WebhookSchema })), ...ErrorResponses },
});

export function registerEnableWebhook(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const row = await setWebhookStatus(c.env, ownerOf(c), recordId(c.req.valid("param").id, "webhook"), "enabled");
    return c.json({ status: true, message: `The webhook "${row.name}" is enabled.`, data: renderWebhook(row) }, 200);
  });
}
