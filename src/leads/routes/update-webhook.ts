import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, ne } from "drizzle-orm";
import { db } from "../../db/client.js";
import { webhooks } from "../../db/schema-leads.js";
import { assertDeliverableUrl } from "../../delivery/index.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import {
  EMPTY_UPDATE_MESSAGE,
  IdParam,
  isUniqueViolation,
  jsonBody,
  jsonContent,
  MutationSchema,
  nonEmpty,
  notFound,
  ownerOf,
  recordId,
  uniqueKey,
} from "../shared.js";
import {
  findWebhook,
  renderWebhook,
  WEBHOOK_EVENTS,
  WEBHOOK_METHODS,
  WEBHOOK_STATUSES,
  WebhookHeadersSchema,
  WebhookNameSchema,
  WebhookSchema,
  WebhookUrlSchema,
} from "../webhooks.js";
import { duplicateWebhook } from "./create-webhook.js";

const UpdateWebhookBody = z
  .strictObject({
    name: WebhookNameSchema.optional(),
    url: WebhookUrlSchema.optional(),
    method: z.enum(WEBHOOK_METHODS).optional(),
    headers: WebhookHeadersSchema.optional().openapi({ description: "Replaces every configured header" }),
    status: z.enum(WEBHOOK_STATUSES).optional(),
    event: z.enum(WEBHOOK_EVENTS).optional(),
  })
  .openapi("UpdateWebhook");

const route = createRoute({
  method: "put",
  path: "/webhooks/{id}",
  tags: ["Webhooks"],
  security,
  summary: "Change a webhook configuration (only the fields sent change)",
  request: { params: IdParam, body: jsonBody(UpdateWebhookBody) },
  responses: { 200: jsonContent("Updated", MutationSchema.extend({ data: WebhookSchema })), ...ErrorResponses },
});

export function registerUpdateWebhook(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const body = c.req.valid("json");
    if (!nonEmpty(body)) throw new ApiError(400, "params_invalid", EMPTY_UPDATE_MESSAGE);
    const accountId = ownerOf(c);
    const hook = await findWebhook(c.env, accountId, recordId(c.req.valid("param").id, "webhook"));
    const store = db(c.env.DB);
    const nameKey = body.name !== undefined ? uniqueKey(body.name) : undefined;
    if (body.name !== undefined) {
      const [taken] = await store
        .select({ id: webhooks.id })
        .from(webhooks)
        .where(
          and(eq(webhooks.accountId, accountId), eq(webhooks.nameKey, uniqueKey(body.name)), ne(webhooks.id, hook.id)),
        )
        .limit(1);
      if (taken) throw duplicateWebhook(body.name);
    }
    const url = body.url !== undefined ? (await assertDeliverableUrl(c.env, body.url, "url")).href : undefined;
    const changes = {
      ...(body.name !== undefined ? { name: body.name, nameKey } : {}),
      ...(url !== undefined ? { url } : {}),
      ...(body.method !== undefined ? { method: body.method } : {}),
      ...(body.headers !== undefined ? { headers: JSON.stringify(body.headers) } : {}),
      ...(body.status !== undefined ? { status: body.status } : {}),
      ...(body.event !== undefined ? { event: body.event } : {}),
      updatedAt: Date.now(),
    };
    try {
      const [row] = await store
        .update(webhooks)
        .set(changes)
        .where(and(eq(webhooks.id, hook.id), eq(webhooks.accountId, accountId)))
        .returning();
      if (!row) throw notFound("webhook", hook.id); // deleted since it was read above
      return c.json({ status: true, message: `The webhook "${row.name}" was updated.`, data: renderWebhook(row) }, 200);
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateWebhook(body.name ?? hook.name);
      throw err;
    }
  });
}
