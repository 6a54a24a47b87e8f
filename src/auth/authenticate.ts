import { eq } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { db } from "../db/client.js";
import { type Account, type ApiKey, accounts, apiKeys } from "../db/schema.js";
import type { AppBindings } from "../env.js";
import { ApiError } from "../http/errors.js";
import { sha256Hex, timingSafeEqualText } from "../platform/crypto.js";
import { boundedMap } from "../platform/isolate-state.js";
import { rfc3339 } from "../platform/time.js";
import { logError } from "../request-context.js";
import { cachedKey, rememberKey, type VerifiedKey } from "./auth-cache.js";
import { assertScopeAllows, bearerToken, resolveBearer } from "./bearer.js";
import { type SessionCall, sessionCallOf } from "./session-calls.js";
import { joinWorkspaceOwner, otherOwner, owners } from "./workspace-owner.js";

export type { AuthContext } from "./auth-context.js";

const KEY_SHAPE = /^[A-Za-z0-9_-]{8,128}$/;
const SECRET_SHAPE = /^[A-Za-z0-9_-]{16,256}$/;

// A fixed digest compared against when no key matches, so unknown keys cost the same time as wrong secrets.
const DUMMY_HASH = "0".repeat(64);

/** Writes last_used_at at most once a minute per key per isolate, off the response path. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
const lastUsedWrites = boundedMap<number, number>("lastUsedWrites");

// The clock is read through Date at call time (not captured), so tests can move it past the auth cache TTL.
export function authenticate(now: () => number = () => Date.now()): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    // A dashboard session's call, made in-process (session-calls.ts): the same checks as a key's account.
    const session = sessionCallOf(c.req.raw);
    if (session) {
      const found = await accountFor(c.env.DB, session);
      const t = now();
      assertAccountUsable(found.actor, t);
      if (found.owner) assertAccountUsable(found.owner, t);
      c.set("auth", { account: found.owner ?? found.actor, actor: found.actor, keyId: null, session });
      return next();
    }
    const key = c.req.header("x-service-key");
    const secret = c.req.header("x-service-secret");
    // OAuth 2.0: a bearer token acts for its account exactly as a key would (same limits, credits).
    const token = !key && !secret ? bearerToken(c.req.header("authorization")) : null;
    if (token !== null) {
      const found = await resolveBearer(c.env, new URL(c.req.url), token);
      const t = now();
      assertAccountUsable(found.actor, t);
      if (found.owner) assertAccountUsable(found.owner, t);
      assertScopeAllows(found.scope, c.req.method, c.req.path);
      c.set("auth", {
        account: found.owner ?? found.actor,
        actor: found.actor,
        keyId: null,
        oauthClientId: found.clientId,
      });
      return next();
    }
    if (!key && !secret) {
      throw new ApiError(
        400,
        "missing_credentials",
        "Send your API key in X-Service-Key and its secret in X-Service-Secret, or an OAuth access token as Authorization: Bearer <token>.",
      );
    }
    if (!key) throw new ApiError(400, "missing_credentials", "The X-Service-Key header is missing.");
    if (!secret) throw new ApiError(400, "missing_credentials", "The X-Service-Secret header is missing.");
    if (!KEY_SHAPE.test(key))
      throw new ApiError(400, "malformed_credentials", "The X-Service-Key header is not a valid API key.");
    if (!SECRET_SHAPE.test(secret))
      throw new ApiError(400, "malformed_credentials", "The X-Service-Secret header is not a valid API secret.");

    const t = now();
    const secretHash = await sha256Hex(secret);
    const found = cachedKey(key, secretHash, t) ?? (await verifyKey(c.env.DB, key, secretHash, t));
    if (!found) throw new ApiError(401, "invalid_credentials", "The API key and secret do not match any account.");
    if (found.key.expiresAt !== null && found.key.expiresAt <= t) {
      const expiredAt = rfc3339(found.key.expiresAt);
      throw new ApiError(
        400,
        "api_key_expired",
        `This API key expired at ${expiredAt}. Create a new key or reset this one.`,
        {
          "X-Service-Key-Expired": expiredAt,
        },
      );
    }
    assertAccountUsable(found.actor, t);
    if (found.owner) assertAccountUsable(found.owner, t);

    c.set("auth", { account: found.owner ?? found.actor, actor: found.actor, keyId: found.key.id });
    touchLastUsed(c, found.key, t);
    await next();
  };
}

export function assertAccountUsable(account: Account, now: number) {
  if (account.kind !== "user")
    throw new ApiError(401, "invalid_credentials", "The API key and secret do not match any account.");
  if (account.blocked) throw new ApiError(401, "account_blocked", "This account is blocked. Contact support.");
  if (!account.confirmed)
    throw new ApiError(401, "account_unconfirmed", "This account's email address is not confirmed yet.");
  if (!account.passwordHash)
    throw new ApiError(
      401,
      "account_without_password",
      "This account has no password set. Set one before using the API.",
    );
  if (account.subscriptionExpiresAt !== null && account.subscriptionExpiresAt <= now) {
    throw new ApiError(
      401,
      "subscription_expired",
      `This account's subscription expired at ${rfc3339(account.subscriptionExpiresAt)}.`,
    );
  }
}

/** Reads the key from D1 and checks the secret; a match is remembered in the isolate's auth cache. */
async function verifyKey(
  d1: D1Database,
  publicKey: string,
  secretHash: string,
  now: number,
): Promise<VerifiedKey | null> {
  const found = await findKey(d1, publicKey);
  const secretMatches = await timingSafeEqualText(secretHash, found?.key.secretHash ?? DUMMY_HASH);
  if (!found || !secretMatches || found.key.revokedAt !== null) return null;
  rememberKey(publicKey, secretHash, found, now);
  return found;
}

/** The account a dashboard session acts as, with its workspace owner. */
async function accountFor(d1: D1Database, session: SessionCall): Promise<{ actor: Account; owner: Account | null }> {
  const query = db(d1).select({ actor: accounts, owner: owners }).from(accounts).$dynamic();
  const [row] = await joinWorkspaceOwner(query).where(eq(accounts.id, session.accountId)).limit(1);
  if (!row) throw new ApiError(401, "invalid_credentials", "The signed-in account no longer exists.");
  return { actor: row.actor, owner: otherOwner(row.actor, row.owner) };
}

async function findKey(d1: D1Database, publicKey: string): Promise<VerifiedKey | null> {
  const query = db(d1)
    .select({ key: apiKeys, actor: accounts, owner: owners })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .$dynamic();
  const rows = await joinWorkspaceOwner(query).where(eq(apiKeys.publicKey, publicKey)).limit(1);
  const row = rows[0];
  if (!row) return null;
  return { key: row.key, actor: row.actor, owner: otherOwner(row.actor, row.owner) };
}

function touchLastUsed(c: Parameters<MiddlewareHandler<AppBindings>>[0], key: ApiKey, now: number) {
  const lastWrite = Math.max(lastUsedWrites.get(key.id) ?? 0, key.lastUsedAt ?? 0);
  if (now - lastWrite < LAST_USED_WRITE_INTERVAL_MS) return;
  lastUsedWrites.set(key.id, now);
  c.executionCtx.waitUntil(
    db(c.env.DB)
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(eq(apiKeys.id, key.id))
      .run()
      .then(
        () => undefined,
        (err) => logError("last_used_at update failed", err),
      ),
  );
}
