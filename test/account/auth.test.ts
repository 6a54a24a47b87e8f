import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { accounts, apiKeys } from "../../src/db/schema.js";
import { addKey, call, createAccount, joinWorkspace, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";

describe("account API authentication", () => {
  it("answers 400 missing_credentials when no credentials are sent", async () => {
    const res = await call("/v1/me");
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.errors).toMatchObject({ type: "missing_credentials", code: 400 });
  });

  it("answers 400 naming the missing header when only one is sent", async () => {
    const a = await createAccount();
    const res = await call("/v1/me", { headers: { "X-Service-Key": a.key } });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.message).toContain("X-Service-Secret");
  });

  it("answers 400 malformed_credentials for a key that cannot be one", async () => {
    const res = await call("/v1/me", { headers: { "X-Service-Key": "bad key!", "X-Service-Secret": "x".repeat(20) } });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.type).toBe("malformed_credentials");
  });

  it("answers 401 for an unknown key and for a wrong secret, with the same message", async () => {
    const a = await createAccount();
    // The same X-Request-Id on both, so the bodies (which echo it as errors.request_id) can be equal.
    const traced = { "X-Request-Id": "same-trace" };
    const unknown = await call("/v1/me", {
      headers: { ...traced, "X-Service-Key": "ck_doesnotexist00", "X-Service-Secret": a.secret },
    });
    const wrong = await call("/v1/me", {
      headers: { ...traced, "X-Service-Key": a.key, "X-Service-Secret": `${a.secret}x` },
    });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    const [u, w] = [await json(unknown), await json(wrong)];
    expect(u.errors.type).toBe("invalid_credentials");
    expect(w.errors).toEqual(u.errors);
  });

  it("answers 400 api_key_expired with X-Service-Key-Expired for an expired key", async () => {
    const expiredAt = Date.UTC(2025, 0, 2, 3, 4, 5);
    const a = await createAccount({ keyExpiresAt: expiredAt });
    const res = await call("/v1/me", { headers: a.headers });
    expect(res.status).toBe(400);
    expect(res.headers.get("X-Service-Key-Expired")).toBe("2025-01-02T03:04:05+00:00");
    expect((await json(res)).errors.type).toBe("api_key_expired");
  });

  it("does not reveal expiry to a caller with the wrong secret", async () => {
    const a = await createAccount({ keyExpiresAt: Date.now() - 1000 });
    const res = await call("/v1/me", { headers: { "X-Service-Key": a.key, "X-Service-Secret": `${a.secret}x` } });
    expect(res.status).toBe(401);
    expect(res.headers.get("X-Service-Key-Expired")).toBeNull();
  });

  it.each([
    ["unconfirmed", { confirmed: false }, "account_unconfirmed"],
    ["without a password", { password: false }, "account_without_password"],
    ["with an expired subscription", { subscriptionExpiresAt: Date.now() - 1000 }, "subscription_expired"],
  ] as const)("answers 401 for an account %s", async (_label, opts, type) => {
    const a = await createAccount(opts);
    const res = await call("/v1/me", { headers: a.headers });
    expect(res.status).toBe(401);
    expect((await json(res)).errors.type).toBe(type);
  });

  it("answers 401 for a revoked key", async () => {
    const a = await createAccount();
    await db(env.DB).update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, a.keyId));
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(401);
  });

  it("lets a workspace member act on the owner's account", async () => {
    const owner = await createAccount({ plan: "growth" });
    const member = await createAccount({ plan: "free" });
    await joinWorkspace(owner.accountId, member.accountId);
    const res = await call("/v1/me", { headers: member.headers });
    expect(res.status).toBe(200);
    const me = await json(res);
    expect(me.data.user_id).toBe(member.accountId);
    expect(me.data.pricing.name).toBe("Growth");
    expect(me.data.teams.role).toBe("member");
  });

  it("stops a member when the owner's subscription has expired", async () => {
    const owner = await createAccount({ subscriptionExpiresAt: Date.now() - 1 });
    const member = await createAccount();
    await joinWorkspace(owner.accountId, member.accountId);
    const res = await call("/v1/me", { headers: member.headers });
    expect(res.status).toBe(401);
    expect((await json(res)).errors.type).toBe("subscription_expired");
  });

  it("records last_used_at off the response path", async () => {
    const a = await createAccount();
    const extra = await addKey(a.accountId);
    expect((await call("/v1/me", { headers: extra.headers })).status).toBe(200);
    await settle(async () => {
      const [row] = await db(env.DB).select().from(apiKeys).where(eq(apiKeys.id, extra.keyId));
      return row?.lastUsedAt !== null;
    });
  });

  it("never lets a system account log in", async () => {
    const a = await createAccount();
    await db(env.DB).update(accounts).set({ kind: "agents" }).where(eq(accounts.id, a.accountId));
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(401);
  });
});
