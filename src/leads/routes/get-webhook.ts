import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { IdParam, jsonContent, ownerOf, recordId } from "../shared.js";
import { findWebhook, renderWebhook, WebhookSchema } from "../webhooks.js";

const route = createRoute({
  method: "get",
  path: "/webhooks/{id}",
  tags: ["Webhooks"],
  security,
  summary: "One webhook configuration",
  request: { params: IdParam },
  responses: { 200: jsonContent("The webhook", z.object({ data: WebhookSchema })), ...ErrorResponses },
});

export function registerGetWebhook(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const row = await findWebhook(c.env, ownerOf(c), recordId(c.req.valid("param").id, "webhook"));
    return c.json({ data: renderWebhook(row) }, 200);
  });
}
