import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AUTH_CACHE_TTL_MS } from "../../src/auth/auth-cache.js";
import { db } from "../../src/db/client.js";
import { accounts, apiKeys } from "../../src/db/schema.js";
import { addKey, call, createAccount, json } from "../support/accounts.js";

/** Moves Date.now (read by the auth middleware on every request) forward by `ms`. */
function advanceClock(ms: number) {
  const real = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => real() + ms);
}

describe("the in-isolate auth cache", () => {
  afterEach(() => vi.restoreAllMocks());

  it("answers a verified credential from memory for at most AUTH_CACHE_TTL_MS after reading it", async () => {
    const a = await createAccount();
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);
    // Revoked behind the API's back (as another isolate would): this isolate still has it cached...
    await db(env.DB).update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, a.keyId));
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);
    // ...but never longer than the documented bound.
    advanceClock(AUTH_CACHE_TTL_MS);
    const res = await call("/v1/me", { headers: a.headers });
    expect(res.status).toBe(401);
    expect((await json(res)).errors.type).toBe("invalid_credentials");
  });

  it("blocks an account's cached key within the bound", async () => {
    const a = await createAccount();
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);
    await db(env.DB).update(accounts).set({ blocked: true }).where(eq(accounts.id, a.accountId));
    advanceClock(AUTH_CACHE_TTL_MS);
    const res = await call("/v1/me", { headers: a.headers });
    expect(res.status).toBe(401);
    expect((await json(res)).errors.type).toBe("account_blocked");
  });

  it("never answers a wrong secret from the cache", async () => {
    const a = await createAccount();
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);
    const wrong = await call("/v1/me", { headers: { "X-Service-Key": a.key, "X-Service-Secret": `${a.secret}x` } });
    expect(wrong.status).toBe(401);
  });

  it("stops a key revoked through /v1/keys at once", async () => {
    const a = await createAccount();
    const extra = await addKey(a.accountId);
    expect((await call("/v1/me", { headers: extra.headers })).status).toBe(200);
    expect((await call(`/v1/keys/${extra.keyId}`, { method: "DELETE", headers: a.headers })).status).toBe(200);
    expect((await call("/v1/me", { headers: extra.headers })).status).toBe(401);
  });

  it("stops the old secret of a key reset through /v1/keys at once, and accepts the new one", async () => {
    const a = await createAccount();
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);
    const reset = await call(`/v1/keys/${a.keyId}/reset`, { method: "PUT", headers: a.headers });
    expect(reset.status).toBe(200);
    const { data } = await json(reset);
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(401);
    expect(
      (await call("/v1/me", { headers: { "X-Service-Key": a.key, "X-Service-Secret": data.secret } })).status,
    ).toBe(200);
  });

  it("expires a cached key exactly at its expiry time", async () => {
    const a = await createAccount({ keyExpiresAt: Date.now() + 2_000 });
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);
    advanceClock(2_000);
    const res = await call("/v1/me", { headers: a.headers });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.type).toBe("api_key_expired");
  });

  it("ends a cached account's access exactly when its subscription expires", async () => {
    const a = await createAccount({ subscriptionExpiresAt: Date.now() + 2_000 });
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);
    advanceClock(2_000);
    const res = await call("/v1/me", { headers: a.headers });
    expect(res.status).toBe(401);
    expect((await json(res)).errors.type).toBe("subscription_expired");
  });
});
