import { eq } from "drizzle-orm";
import { forgetKey } from "../../../auth/auth-cache.js";
import { db } from "../../../db/client.js";
import { apiKeys } from "../../../db/schema.js";
import type { ApiApp } from "../../../http/openapi.js";
import { forgetMeViews } from "../../me-cache.js";
import { revokeCurrentRoute, targetKey } from "./current-key.js";

export function registerRevokeCurrentKey(v1: ApiApp) {
  v1.openapi(revokeCurrentRoute, async (c) => {
    const key = await targetKey(c, c.req.valid("json")?.id);
    const now = Date.now();
    await db(c.env.DB).update(apiKeys).set({ revokedAt: now, updatedAt: now }).where(eq(apiKeys.id, key.id)).run();
    forgetKey(key.id);
    forgetMeViews(key.accountId);
    return c.json({ status: true, message: `The key ${key.publicKey} was revoked.` }, 200);
  });
}
