import { createRoute, z } from "@hono/zod-openapi";
import { signingSecretRecord } from "../../delivery/index.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { rfc3339 } from "../../platform/time.js";
import { jsonContent, ownerOf } from "../shared.js";

export const SigningSecretSchema = z
  .object({
    secret: z.string().openapi({
      description: "Standard Webhooks secret (whsec_...) that signs save_lead deliveries and webhook_url callbacks",
    }),
    created_at: z.string(),
    rotated_at: z.string().nullable(),
  })
  .openapi("SigningSecret");
export type SigningSecret = z.infer<typeof SigningSecretSchema>;

const route = createRoute({
  method: "get",
  path: "/webhooks/secret",
  tags: ["Webhooks"],
  security,
  summary:
    "The secret that signs webhook deliveries and callbacks (webhook-id, webhook-timestamp, webhook-signature headers)",
  responses: { 200: jsonContent("Secret", z.object({ data: SigningSecretSchema })), ...ErrorResponses },
});

export function registerWebhookSecret(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const record = await signingSecretRecord(c.env, ownerOf(c), "webhooks");
    return c.json(
      { data: { secret: record.secret, created_at: rfc3339(record.createdAt), rotated_at: rfc3339(record.rotatedAt) } },
      200,
    );
  });
}
