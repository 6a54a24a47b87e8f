import { z } from "@hono/zod-openapi";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { db } from "../db/client.js";
import { apiKeys, type ApiKey } from "../db/schema.js";
import { type ApiApp, type Ctx, defineRoute, input } from "../http/openapi.js";
import { ApiError } from "../http/errors.js";
import { DAY_MS, rfc3339 } from "../http/time.js";
import { planFor } from "../limits/plans.js";
import { forgetKey } from "./auth-cache.js";
import { newKeyPair, sha256Hex } from "./crypto.js";
import { ErrorResponses, security } from "./openapi-shared.js";
import { describeIssue } from "../http/validation.js";

export const MAX_KEY_LIFETIME_DAYS = 730;
export const DEFAULT_KEY_LIFETIME_DAYS = 365;

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

const KeyListSchema = z.object({ data: z.object({ keys: z.array(KeySchema) }) });
export const KeyWithSecretSchema = z.object({
  data: KeySchema.extend({ secret: z.string().openapi({ description: "Shown once; store it now." }) }),
});
export const MutationSchema = z.object({ status: z.boolean(), message: z.string() });
export const MutationWithKeySchema = MutationSchema.extend({ data: KeyWithSecretSchema.shape.data });

const CreateBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  expires_in_days: z.coerce.number().int().min(1).max(MAX_KEY_LIFETIME_DAYS).optional(),
});
const RenameBody = z.object({ name: z.string().trim().min(1).max(100) });
const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, example: "1" }) });

export function renderKey(k: ApiKey) {
  const created = rfc3339(k.createdAt)!;
  return {
    id: k.id,
    key: k.publicKey,
    name: k.name,
    user_id: k.accountId,
    expires_at: rfc3339(k.expiresAt),
    last_used_at: rfc3339(k.lastUsedAt),
    created_at: created,
    updated_at: rfc3339(k.updatedAt)!,
    creation_date: created,
    ip: "",
    ip_addresses: "",
  };
}

const keysRoute = <T extends object>(method: "get" | "post" | "patch" | "put" | "delete", path: string, extra: T) =>
  ({ method, path, tags: ["Keys"], security, ...extra }) as unknown as Parameters<typeof defineRoute>[1];

export function registerKeyRoutes(v1: ApiApp) {
  const listKeys = async (c: Ctx) => {
    const rows = await db(c.env.DB)
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, c.get("auth").actor.id), isNull(apiKeys.revokedAt)))
      .orderBy(asc(apiKeys.id));
    return c.json({ data: { keys: rows.map(renderKey) } }, 200);
  };

  const createKey = async (c: Ctx, body: z.infer<typeof CreateBody>) => {
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
      throw new ApiError(422, "keys_limit_reached", `Your plan allows ${cap} active API keys; delete one before creating another.`);
    }
    const row = await db(c.env.DB).select().from(apiKeys).where(eq(apiKeys.id, id)).get();
    return c.json({ data: { ...renderKey(row!), secret } }, 200);
  };

  const findOwnKey = async (c: Ctx, id: string): Promise<ApiKey> => {
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
  };

  const resetKey = async (c: Ctx, id: string) => {
    const key = await findOwnKey(c, id);
    const { secret } = newKeyPair();
    const now = Date.now();
    const [row] = await db(c.env.DB)
      .update(apiKeys)
      .set({ secretHash: await sha256Hex(secret), updatedAt: now })
      .where(eq(apiKeys.id, key.id))
      .returning();
    forgetKey(key.id);
    return c.json({ status: true, message: "The key has a new secret; the old one no longer works.", data: { ...renderKey(row!), secret } }, 200);
  };

  defineRoute(
    v1,
    keysRoute("get", "/keys", {
      summary: "List the API keys of this account",
      responses: { 200: { description: "Keys", content: { "application/json": { schema: KeyListSchema } } }, ...ErrorResponses },
    }),
    listKeys,
  );

  defineRoute(
    v1,
    keysRoute("post", "/keys", {
      summary: "Create an API key (the secret is returned once)",
      request: { body: { required: false, content: { "application/json": { schema: CreateBody } } } },
      responses: {
        200: { description: "The new key with its secret", content: { "application/json": { schema: KeyWithSecretSchema } } },
        ...ErrorResponses,
      },
    }),
    (async (c: Ctx) => createKey(c, input<z.infer<typeof CreateBody>>(c, "json"))),
  );

  defineRoute(
    v1,
    keysRoute("get", "/keys/{id}", {
      summary: "Get one API key",
      request: { params: IdParam },
      responses: { 200: { description: "The key, as a one-element list", content: { "application/json": { schema: KeyListSchema } } }, ...ErrorResponses },
    }),
    (async (c: Ctx) => {
      const id = c.req.param("id")!;
      if (isLiteralIdTemplate(id)) return listKeys(c);
      return c.json({ data: { keys: [renderKey(await findOwnKey(c, id))] } }, 200);
    }),
  );

  defineRoute(
    v1,
    keysRoute("patch", "/keys/{id}", {
      summary: "Rename an API key",
      request: { params: IdParam, body: { required: true, content: { "application/json": { schema: RenameBody } } } },
      responses: { 200: { description: "Renamed", content: { "application/json": { schema: MutationSchema } } }, ...ErrorResponses },
    }),
    (async (c: Ctx) => {
      const key = await findOwnKey(c, c.req.param("id")!);
      const { name } = input<z.infer<typeof RenameBody>>(c, "json");
      await db(c.env.DB).update(apiKeys).set({ name, updatedAt: Date.now() }).where(eq(apiKeys.id, key.id)).run();
      return c.json({ status: true, message: `The key is now named '${name}'.` }, 200);
    }),
  );

  for (const path of ["/keys/{id}", "/keys/{id}/reset"]) {
    defineRoute(
    v1,
      keysRoute("put", path, {
        summary: "Give an API key a new secret (returned once)",
        request: { params: IdParam },
        responses: { 200: { description: "New secret", content: { "application/json": { schema: MutationWithKeySchema } } }, ...ErrorResponses },
      }),
      (async (c: Ctx) => resetKey(c, c.req.param("id")!)),
    );
  }

  defineRoute(
    v1,
    keysRoute("delete", "/keys/{id}", {
      summary: "Revoke an API key",
      request: { params: IdParam },
      responses: { 200: { description: "Revoked", content: { "application/json": { schema: MutationSchema } } }, ...ErrorResponses },
    }),
    (async (c: Ctx) => {
      const key = await findOwnKey(c, c.req.param("id")!);
      await db(c.env.DB).update(apiKeys).set({ revokedAt: Date.now(), updatedAt: Date.now() }).where(eq(apiKeys.id, key.id)).run();
      forgetKey(key.id);
      return c.json({ status: true, message: "The key was revoked." }, 200);
    }),
  );

  // The JavaScript client creates keys with `POST /keys/{id}` (template not filled in). Undocumented on purpose.
  v1.post("/keys/:id", async (c) => {
    if (!isLiteralIdTemplate(c.req.param("id"))) {
      throw new ApiError(405, "method_not_allowed", "POST is not allowed on an existing key; use PUT to reset or PATCH to rename.");
    }
    const text = (await c.req.text()).trim();
    let raw: unknown = {};
    if (text && text !== "null") {
      try {
        raw = JSON.parse(text);
      } catch {
        throw new ApiError(400, "params_invalid", "The request body is not valid JSON; send an object such as {\"name\": \"CI\"} or no body.");
      }
    }
    const parsed = CreateBody.safeParse(raw);
    if (!parsed.success) throw new ApiError(400, "params_invalid", describeIssue(parsed.error, raw));
    return createKey(c, parsed.data);
  });
}
