import { createRoute, z } from "@hono/zod-openapi";
import { rotateSigningSecret, signingSecretRecord } from "../../delivery/index.js";
import type { ApiApp } from "../../http/openapi.js";
import { rfc3339 } from "../../platform/time.js";
import { JobErrors, security, TAG } from "./shared.js";

const SecretSchema = z
  .object({
    data: z.object({
      secret: z
        .string()
        .openapi({ description: "whsec_...: verifies the Standard Webhooks signature of bulk end events" }),
      created_at: z.string(),
      rotated_at: z.string().nullable(),
    }),
  })
  .openapi("BulkWebhookSecret");

const read = createRoute({
  method: "get",
  path: "/bulk/webhook-secret",
  tags: [TAG],
  security,
  summary: "The secret that signs bulk job end events (created on first use)",
  responses: {
    200: { description: "Secret", content: { "application/json": { schema: SecretSchema } } },
    ...JobErrors,
  },
});

const rotate = createRoute({
  method: "post",
  path: "/bulk/webhook-secret/rotate",
  tags: [TAG],
  security,
  summary: "Replace the bulk signing secret; later events are signed with the new one",
  responses: {
    200: { description: "New secret", content: { "application/json": { schema: SecretSchema } } },
    ...JobErrors,
  },
});

export function registerWebhookSecret(app: ApiApp) {
  app.openapi(read, async (c) => {
    const r = await signingSecretRecord(c.env, c.get("auth").account.id, "bulk");
    return c.json(
      { data: { secret: r.secret, created_at: rfc3339(r.createdAt), rotated_at: rfc3339(r.rotatedAt) } },
      200,
    );
  });
  app.openapi(rotate, async (c) => {
    const accountId = c.get("auth").account.id;
    await rotateSigningSecret(c.env, accountId, "bulk");
    const r = await signingSecretRecord(c.env, accountId, "bulk");
    return c.json(
      { data: { secret: r.secret, created_at: rfc3339(r.createdAt), rotated_at: rfc3339(r.rotatedAt) } },
      200,
    );
  });
}
