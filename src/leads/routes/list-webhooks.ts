import { createRoute, z } from "@hono/zod-openapi";
import { asc, eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { webhooks } from "../../db/schema-leads.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { jsonContent, ownerOf } from "../shared.js";
import { renderWebhook, WebhookSchema } from "../webhooks.js";

const route = createRoute({
  method: "get",
  path: "/webhooks",
  tags: ["Webhooks"],
  security,
  summary: "List webhook configurations",
  responses: {
    200: jsonContent("Webhooks", z.object({ data: z.object({ webhooks: z.array(WebhookSchema) }) })),
    ...ErrorResponses,
  },
});

export function registerListWebhooks(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const rows = await db(c.env.DB)
      .select()
      .from(webhooks)
      .where(eq(webhooks.accountId, ownerOf(c)))
      .orderBy(asc(webhooks.id));
    return c.json({ data: { webhooks: rows.map(renderWebhook) } }, 200);
  });
}
