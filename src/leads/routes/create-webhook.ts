import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { webhooks } from "../../db/schema-leads.js";
import { assertDeliverableUrl } from "../../delivery/index.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { isUniqueViolation, jsonBody, jsonContent, MutationSchema, ownerOf, uniqueKey } from "../shared.js";
import {
  MAX_WEBHOOKS_PER_ACCOUNT,
  renderWebhook,
  WEBHOOK_EVENTS,
  WEBHOOK_METHODS,
  WEBHOOK_STATUSES,
  WebhookHeadersSchema,
  WebhookNameSchema,
  WebhookSchema,
  WebhookUrlSchema,
} from "../webhooks.js";

const CreateWebhookBody = z
  .strictObject({
    name: WebhookNameSchema,
    url: WebhookUrlSchema,
    method: z.enum(WEBHOOK_METHODS).default("POST"),
    headers: WebhookHeadersSchema.default({}),
    status: z.enum(WEBHOOK_STATUSES).default("enabled"),
    event: z.enum(WEBHOOK_EVENTS).default("save_lead"),
  })
  .openapi("CreateWebhook");

export const duplicateWebhook = (name: string) =>
  new ApiError(422, "duplicate_record", `A webhook named "${name}" already exists.`);

const route = createRoute({
  method: "post",
  path: "/webhooks",
  tags: ["Webhooks"],
  security,
  summary: "Create a webhook configuration (event save_lead; HTTPS URL; unique name)",
  request: { body: jsonBody(CreateWebhookBody) },
  responses: { 200: jsonContent("Created", MutationSchema.extend({ data: WebhookSchema })), ...ErrorResponses },
});

export function registerCreateWebhook(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const accountId = ownerOf(c);
    const store = db(c.env.DB);
    const held = await store.$count(webhooks, eq(webhooks.accountId, accountId));
    if (held >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw new ApiError(
        422,
        "webhooks_limit_reached",
        `An account can have ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one before creating another.`,
      );
    }
    const nameKey = uniqueKey(body.name);
    const [taken] = await store
      .select({ id: webhooks.id })
      .from(webhooks)
      .where(and(eq(webhooks.accountId, accountId), eq(webhooks.nameKey, nameKey)))
      .limit(1);
    if (taken) throw duplicateWebhook(body.name);
    const url = await assertDeliverableUrl(c.env, body.url, "url");
    const now = Date.now();
    try {
      const [row] = await store
        .insert(webhooks)
        .values({
          accountId,
          name: body.name,
          nameKey,
          url: url.href,
          method: body.method,
          headers: JSON.stringify(body.headers),
          status: body.status,
          event: body.event,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (!row) throw new Error("inserting a webhook returned no row");
      return c.json({ status: true, message: `The webhook "${row.name}" was created.`, data: renderWebhook(row) }, 200);
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateWebhook(body.name);
      throw err;
    }
  });
}
