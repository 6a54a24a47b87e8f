import { z } from "@hono/zod-openapi";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { forgetKey } from "../../../auth/auth-cache.js";
import { requireRole } from "../../../auth/roles.js";
import { db } from "../../../db/client.js";
import { type ApiKey, apiKeys } from "../../../db/schema.js";
import type { AppBindings } from "../../../env.js";
import { ApiError } from "../../../http/errors.js";
import type { Ctx } from "../../../http/openapi.js";
import { security } from "../../../http/openapi-shared.js";
import { fixedLimit } from "../../../limits/middleware.js";
import { planFor } from "../../../limits/plans.js";
import { newKeyPair, sha256Hex } from "../../../platform/crypto.js";
import { DAY_MS, rfc3339 } from "../../../platform/time.js";
import { forgetMeViews } from "../../me-cache.js";

export const MAX_KEY_LIFETIME_DAYS = 730;
export const DEFAULT_KEY_LIFETIME_DAYS = 365;

/** What every keys route shares in the OpenAPI document. */
export const keysDoc = { tags: ["Keys"], security };

/** Fixed limits of the keys routes, the same on every plan: reads per minute, writes per hour. */
export const keysRead = fixedLimit({
  name: "keys:read",
  limit: 100,
  windowMs: 60_000,
  scope: "account",
  methods: ["GET"],
});
const keysWriteLimit = fixedLimit({
  name: "keys:write",
  limit: 100,
  windowMs: 3_600_000,
  scope: "account",
  methods: ["POST", "PATCH", "PUT", "DELETE"],
});
/** A team's plain members use keys but do not create, roll or revoke them (src/account/team.ts). */
const managesKeys: MiddlewareHandler<AppBindings> = async (c, next) => {
  await requireRole(c.env.DB, c.get("auth"), "keys");
  await next();
};
export const keysWrite = [managesKeys, keysWriteLimit];

/** Clients of this API send the literal template `{id}` (percent-encoded) when they mean "no id". */
export const isLiteralIdTemplate = (id: string) => id === "{id}" || id.toLowerCase() === "%7bid%7d";

export const KeySchema = z
  .object({
    id: z.number().int(),
    key: z.string(),
    name: z.string(),
    user_id: z.number().int(),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    creation_date: z.string(),
    ip: z.string(),
    ip_addresses: z.string(),
  })
  .openapi("ApiKey");
/** A key as the API shows it (the stored row is `ApiKey`). */
export type ApiKeyData = z.infer<typeof KeySchema>;

export const KeyListSchema = z.object({ data: z.object({ keys: z.array(KeySchema) }) });
export type KeyList = z.infer<typeof KeyListSchema>;
export const KeyWithSecretSchema = z.object({
  data: KeySchema.extend({ secret: z.string().openapi({ description: "Shown once; store it now." }) }),
});
/** A key just created or reset, with its secret (shown once). */
export type ApiKeyWithSecret = z.infer<typeof KeyWithSecretSchema>["data"];
export const MutationSchema = z.object({ status: z.boolean(), message: z.string() });
export const MutationWithKeySchema = MutationSchema.extend({ data: KeyWithSecretSchema.shape.data });

export const CreateBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  expires_in_days: z.coerce.number().int().min(1).max(MAX_KEY_LIFETIME_DAYS).optional(),
});
export const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, example: "1" }) });

export function renderKey(k: ApiKey): ApiKeyData {
  const created = rfc3339(k.createdAt);
  return {
    id: k.id,
    key: k.publicKey,
    name: k.name,
    user_id: k.accountId,
    expires_at: rfc3339(k.expiresAt),
    last_used_at: rfc3339(k.lastUsedAt),
    created_at: created,
    updated_at: rfc3339(k.updatedAt),
    creation_date: created,
    ip: "",
    ip_addresses: "",
  };
}

export async function listKeys(c: Ctx): Promise<z.infer<typeof KeyListSchema>> {
  const rows = await db(c.env.DB)
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, c.get("auth").actor.id), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.id));
  return { data: { keys: rows.map(renderKey) } };
}

export async function createKey(
  c: Ctx,
  body: z.infer<typeof CreateBody>,
): Promise<z.infer<typeof KeyWithSecretSchema>> {
  const auth = c.get("auth");
  const now = Date.now();
  const cap = planFor(auth.account.plan).caps.keys;
  const { publicKey, secret } = newKeyPair();
  const days = body.expires_in_days ?? DEFAULT_KEY_LIFETIME_DAYS;
  // Count and insert in ONE statement: D1 runs statements one at a time, so concurrent creates
  // cannot all see "below the cap" and all insert (a count, then an insert, let 30 parallel
  // creates on a 2-key plan end with 31 keys).
  const active = sql`(SELECT COUNT(*) FROM ${apiKeys} WHERE ${apiKeys.accountId} = ${auth.actor.id} AND ${apiKeys.revokedAt} IS NULL
    AND (${apiKeys.expiresAt} IS NULL OR ${apiKeys.expiresAt} > ${now}))`;
  const name = body.name ?? null;
  const inserted = await db(c.env.DB).all<Record<string, unknown>>(sql`
    INSERT INTO ${apiKeys} (account_id, name, public_key, secret_hash, expires_at, created_at, updated_at)
    SELECT ${auth.actor.id}, COALESCE(${name}, 'API key ' || (${active} + 1)), ${publicKey}, ${await sha256Hex(secret)}, ${now + days * DAY_MS}, ${now}, ${now}
    WHERE ${active} < ${cap}
    RETURNING id`);
  const id = inserted[0]?.id;
  if (typeof id !== "number") {
    throw new ApiError(
      422,
      "keys_limit_reached",
      `Your plan allows ${cap} active API keys; delete one before creating another.`,
    );
  }
  const row = await db(c.env.DB).select().from(apiKeys).where(eq(apiKeys.id, id)).get();
  if (!row) throw new Error("reading a key just inserted found no row");
  return { data: { ...renderKey(row), secret } };
}

/** An active key of this account, by numeric id or public key; a foreign or revoked one is a 404. */
export async function findOwnKey(c: Ctx, id: string): Promise<ApiKey> {
  const auth = c.get("auth");
  const byNumber = /^\d{1,15}$/.test(id);
  const [row] = await db(c.env.DB)
    .select()
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.accountId, auth.actor.id),
        isNull(apiKeys.revokedAt),
        byNumber ? eq(apiKeys.id, Number(id)) : eq(apiKeys.publicKey, id),
      ),
    )
    .limit(1);
  if (!row) throw new ApiError(404, "unknown_record", `No API key with id ${id} on this account.`);
  return row;
}

/** Gives `key` a new secret (the old one stops working at once) and answers it, once. */
export async function resetKey(c: Ctx, key: ApiKey): Promise<z.infer<typeof MutationWithKeySchema>> {
  const { secret } = newKeyPair();
  const [row] = await db(c.env.DB)
    .update(apiKeys)
    .set({ secretHash: await sha256Hex(secret), updatedAt: Date.now() })
    .where(eq(apiKeys.id, key.id))
    .returning();
  forgetKey(key.id);
  forgetMeViews(key.accountId);
  if (!row) throw new Error("updating a key returned no row");
  return {
    status: true,
    message: "The key has a new secret; the old one no longer works.",
    data: { ...renderKey(row), secret },
  };
}
