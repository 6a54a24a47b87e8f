import { createRoute } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { forgetKey } from "../../../auth/auth-cache.js";
import { db } from "../../../db/client.js";
import { apiKeys } from "../../../db/schema.js";
import type { ApiApp } from "../../../http/openapi.js";
import { ErrorResponses } from "../../../http/openapi-shared.js";
import { forgetMeViews } from "../../me-cache.js";
import { findOwnKey, IdParam, keysDoc, keysWrite, MutationSchema } from "./shared.js";

const route = createRoute({
  method: "delete",
  path: "/keys/{id}",
  ...keysDoc,
  middleware: keysWrite,
  summary: "Revoke an API key",
  request: { params: IdParam },
  responses: {
    200: { description: "Revoked", content: { "application/json": { schema: MutationSchema } } },
    ...ErrorResponses,
  },
});

export function registerRevokeKey(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const key = await findOwnKey(c, c.req.valid("param").id);
    await db(c.env.DB)
      .update(apiKeys)
      .set({ revokedAt: Date.now(), updatedAt: Date.now() })
      .where(eq(apiKeys.id, key.id))
      .run();
    forgetKey(key.id);
    forgetMeViews(key.accountId);
    return c.json({ status: true, message: "The key was revoked." }, 200);
  });
}
