import { createRoute } from "@hono/zod-openapi";
import { rotateSigningSecret, signingSecretRecord } from "../../delivery/index.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { rfc3339 } from "../../platform/time.js";
import { jsonContent, MutationSchema, ownerOf } from "../shared.js";
import { SigningSecretSchema } from "./webhook-secret.js";

const route = createRoute({
  method: "post",
  path: "/webhooks/secret/rotate",
  tags: ["Webhooks"],
  security,
  summary: "Replace the webhook signing secret; attempts from now on are signed with the new one",
  responses: {
    200: jsonContent("New secret", MutationSchema.extend({ data: SigningSecretSchema })),
    ...ErrorResponses,
  },
});

export function registerRotateWebhookSecret(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const accountId = ownerOf(c);
    await rotateSigningSecret(c.env, accountId, "webhooks");
    const record = await signingSecretRecord(c.env, accountId, "webhooks");
    return c.json(
      {
        status: true,
        message: "The signing secret was replaced.",
        data: { secret: record.secret, created_at: rfc3339(record.createdAt), rotated_at: rfc3339(record.rotatedAt) },
      },
      200,
    );
  });
}
