import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, isNull } from "drizzle-orm";
import { db } from "../db/client.js";
import { type ApiKey, apiKeys } from "../db/schema.js";
import type { AppBindings } from "../env.js";
import { ApiError } from "../http/errors.js";
import type { ApiApp } from "../http/openapi.js";
import type { Context } from "hono";
import { forgetKey } from "./auth-cache.js";
import { newKeyPair, sha256Hex } from "./crypto.js";
import { ErrorResponses, security } from "./openapi-shared.js";
import { MutationSchema, MutationWithKeySchema, renderKey } from "./v1-keys.js";

/**
 * `PUT /keys` and `DELETE /keys`, the id-less forms the spec lists beside `/keys/{id}`: they act on
 * the key named by `id` in the body, or, without one (clients send `{}`), on the key that
 * authenticated this very request. PUT gives it a new secret (returned once), DELETE revokes it.
 */

const Body = z
  .object({
    id: z
      .union([z.number().int().min(1), z.string().trim().min(1).max(128)])
      .optional()
      .openapi({ description: "Key id or public key; default: the key sending this request" }),
  })
  .openapi("KeyTarget");

const body = { required: false, content: { "application/json": { schema: Body } } } as const;

const resetRoute = createRoute({
  method: "put",
  path: "/keys",
  tags: ["Keys"],
  security,
  summary: "Give a key a new secret (returned once); without an id, the key sending this request",
  request: { body },
  responses: { 200: { description: "New secret", content: { "application/json": { schema: MutationWithKeySchema } } }, ...ErrorResponses },
});

const revokeRoute = createRoute({
  method: "delete",
  path: "/keys",
  tags: ["Keys"],
  security,
  summary: "Revoke a key; without an id, the key sending this request (it stops working at once)",
  request: { body },
  responses: { 200: { description: "Revoked", content: { "application/json": { schema: MutationSchema } } }, ...ErrorResponses },
});

async function targetKey(c: Context<AppBindings>, id: number | string | undefined): Promise<ApiKey> {
  const auth = c.get("auth");
  const target = id ?? auth.keyId;
  if (target === null) {
    throw new ApiError(400, "params_invalid", "The parameter 'id' is required: this request was not made with an API key.");
  }
  const byNumber = typeof target === "number" || /^\d{1,15}$/.test(target);
  const [row] = await db(c.env.DB)
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, auth.actor.id), isNull(apiKeys.revokedAt), byNumber ? eq(apiKeys.id, Number(target)) : eq(apiKeys.publicKey, String(target))))
    .limit(1);
  if (!row) throw new ApiError(404, "unknown_record", `No API key with id ${target} on this account.`);
  return row;
}

export function registerCurrentKeyRoutes(v1: ApiApp) {
  v1.openapi(resetRoute, async (c) => {
    const key = await targetKey(c, (c.req.valid("json") ?? {}).id);
    const { secret } = newKeyPair();
    const [row] = await db(c.env.DB)
      .update(apiKeys)
      .set({ secretHash: await sha256Hex(secret), updatedAt: Date.now() })
      .where(eq(apiKeys.id, key.id))
      .returning();
    forgetKey(key.id);
    return c.json({ status: true, message: "The key has a new secret; the old one no longer works.", data: { ...renderKey(row!), secret } }, 200);
  });

  v1.openapi(revokeRoute, async (c) => {
    const key = await targetKey(c, (c.req.valid("json") ?? {}).id);
    const now = Date.now();
    await db(c.env.DB).update(apiKeys).set({ revokedAt: now, updatedAt: now }).where(eq(apiKeys.id, key.id)).run();
    forgetKey(key.id);
    return c.json({ status: true, message: `The key ${key.publicKey} was revoked.` }, 200);
  });
}
