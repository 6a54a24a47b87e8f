import { createRoute } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { webhooks } from "../../db/schema-leads.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { IdParam, jsonContent, MutationSchema, ownerOf, recordId } from "../shared.js";
import { findWebhook } from "../webhooks.js";

const route = createRoute({
  method: "delete",
  path: "/webhooks/{id}",
  tags: ["Webhooks"],
  security,
  summary: "Delete a webhook configuration (queued deliveries to it are dropped)",
  request: { params: IdParam },
  responses: { 200: jsonContent("Deleted", MutationSchema), ...ErrorResponses },
});

export function registerDeleteWebhook(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const accountId = ownerOf(c);
    const hook = await findWebhook(c.env, accountId, recordId(c.req.valid("param").id, "webhook"));
    await db(c.env.DB)
      .delete(webhooks)
      .where(and(eq(webhooks.id, hook.id), eq(webhooks.accountId, accountId)));
    return c.json({ status: true, message: `The webhook "${hook.name}" was deleted.` }, 200);
  });
}
