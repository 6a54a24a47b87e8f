import { createRoute, z } from "@hono/zod-openapi";
import { listAttempts } from "../../delivery/index.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { classicMeta, jsonContent, ownerOf, pageQuery } from "../shared.js";
import { DeliveryLogSchema, renderAttempt } from "./webhook-deliveries.js";

const route = createRoute({
  method: "get",
  path: "/deliveries",
  tags: ["Webhooks"],
  security,
  summary:
    "Every delivery attempt of the account (save_lead webhooks, webhook_url callbacks, bulk end events), newest first",
  request: {
    query: z.object({
      ...pageQuery(20),
      delivery_id: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .openapi({ description: "Only the attempts of one delivery (its webhook-id header)" }),
    }),
  },
  responses: { 200: jsonContent("Attempts", DeliveryLogSchema), ...ErrorResponses },
});

export function registerListDeliveries(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const { page, limit, delivery_id } = c.req.valid("query");
    const { rows, total } = await listAttempts(c.env, ownerOf(c), { deliveryId: delivery_id, page, limit });
    return c.json({ data: { deliveries: rows.map(renderAttempt), meta: classicMeta(total, page, limit) } }, 200);
  });
}
