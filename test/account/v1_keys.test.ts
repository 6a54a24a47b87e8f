import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { apiKeys } from "../../src/db/schema.js";
import { planFor } from "../../src/limits/plans.js";
import { call, createAccount, json } from "../support/accounts.js";

const post = (path: string, headers: Record<string, string>, body?: unknown, method = "POST") =>
  call(path, {
    method,
    headers: { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("/v1/keys", () => {
  it("creates a key whose secret is shown once, stored only as a hash, and works", async () => {
    const a = await createAccount();
    const res = await post("/v1/keys", a.headers, { name: "ci", expires_in_days: 30 });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({
      name: "ci",
      key: expect.stringMatching(/^ck_/),
      secret: expect.stringMatching(/^cs_/),
    });
    expect(Date.parse(data.expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const [row] = await db(env.DB).select().from(apiKeys).where(eq(apiKeys.id, data.id));
    expect(JSON.stringify(row)).not.toContain(data.secret);

    const list = await json(await call("/v1/keys", { headers: a.headers }));
    expect(JSON.stringify(list)).not.toContain(data.secret);
    expect(list.data.keys.map((k: { id: number }) => k.id)).toContain(data.id);

    const me = await call("/v1/me", { headers: { "X-Service-Key": data.key, "X-Service-Secret": data.secret } });
    expect(me.status).toBe(200);
  });

  it("rejects an out-of-range expires_in_days with params_invalid", async () => {
    const a = await createAccount();
    const res = await post("/v1/keys", a.headers, { expires_in_days: 100000 });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.message).toContain("expires_in_days");
  });

  it("creates with an empty body and a default name", async () => {
    const a = await createAccount();
    const res = await post("/v1/keys", a.headers, {});
    expect(res.status).toBe(200);
    expect((await json(res)).data.name).toMatch(/API key/);
  });

  it("answers 422 beyond the plan's available_keys active keys", async () => {
    const a = await createAccount({ plan: "free" });
    const cap = planFor("free").caps.keys;
    for (let i = 1; i < cap; i++) expect((await post("/v1/keys", a.headers, {})).status).toBe(200);
    const res = await post("/v1/keys", a.headers, {});
    expect(res.status).toBe(422);
    expect((await json(res)).errors.code).toBe(422);
  });

  it("gets, renames, resets and deletes a key", async () => {
    const a = await createAccount();
    const created = (await json(await post("/v1/keys", a.headers, { name: "old" }))).data;

    const one = await json(await call(`/v1/keys/${created.id}`, { headers: a.headers }));
    expect(one.data.keys).toHaveLength(1);

    const renamed = await post(`/v1/keys/${created.id}`, a.headers, { name: "new" }, "PATCH");
    expect(await json(renamed)).toMatchObject({ status: true });
    expect((await json(await call(`/v1/keys/${created.id}`, { headers: a.headers }))).data.keys[0].name).toBe("new");

    for (const path of [`/v1/keys/${created.id}`, `/v1/keys/${created.id}/reset`]) {
      const reset = await json(await post(path, a.headers, {}, "PUT"));
      expect(reset.status).toBe(true);
      expect(reset.data.secret).not.toBe(created.secret);
      const oldSecret = await call("/v1/me", {
        headers: { "X-Service-Key": created.key, "X-Service-Secret": created.secret },
      });
      expect(oldSecret.status).toBe(401);
      created.secret = reset.data.secret;
    }

    const del = await call(`/v1/keys/${created.id}`, {
      method: "DELETE",
      headers: { ...a.headers, "content-type": "application/json" },
      body: "{}",
    });
    expect(await json(del)).toMatchObject({ status: true });
    expect((await call(`/v1/keys/${created.id}`, { headers: a.headers })).status).toBe(404);
    expect(
      (await call("/v1/me", { headers: { "X-Service-Key": created.key, "X-Service-Secret": created.secret } })).status,
    ).toBe(401);
  });

  it("requires a name to rename", async () => {
    const a = await createAccount();
    const res = await post(`/v1/keys/${a.keyId}`, a.headers, {}, "PATCH");
    expect(res.status).toBe(400);
    expect((await json(res)).errors).toMatchObject({ type: "params_invalid" });
  });

  it("treats the literal {id} segment as no id: GET lists, POST creates", async () => {
    const a = await createAccount();
    const list = await call("/v1/keys/%7Bid%7D", { headers: a.headers });
    expect(list.status).toBe(200);
    expect((await json(list)).data.keys.length).toBeGreaterThan(0);
    const created = await post("/v1/keys/%7Bid%7D", a.headers, {});
    expect(created.status).toBe(200);
    expect((await json(created)).data.secret).toBeTruthy();
  });

  it("never shows or touches another account's key", async () => {
    const a = await createAccount();
    const b = await createAccount();
    expect((await call(`/v1/keys/${b.keyId}`, { headers: a.headers })).status).toBe(404);
    expect((await call(`/v1/keys/${b.keyId}`, { method: "DELETE", headers: a.headers })).status).toBe(404);
    expect((await post(`/v1/keys/${b.keyId}/reset`, a.headers, {}, "PUT")).status).toBe(404);
  });
});
