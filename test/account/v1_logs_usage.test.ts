import { describe, expect, it } from "vitest";
import { call, createAccount, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";

async function waitForLogs(headers: Record<string, string>, count: number) {
  let body: any;
  await settle(async () => {
    body = await json(await call(`/v1/logs?limit=100`, { headers }));
    return body.meta.total >= count;
  });
  return body;
}

describe("/v1/logs", () => {
  it("logs every authenticated request with method, status, endpoint, duration and key", async () => {
    const a = await createAccount();
    await call("/v1/me", { headers: a.headers });
    await call("/v1/keys/999999", { headers: a.headers });
    const body = await waitForLogs(a.headers, 2);
    const notFound = body.data.find((l: any) => l.status_code === 404);
    expect(notFound).toMatchObject({
      http_method: "GET",
      endpoint: "/v1/keys/:id",
      api_key_id: a.keyId,
      uri: "/v1/keys/999999",
    });
    expect(notFound.duration_ms).toBeGreaterThanOrEqual(0);
    expect(notFound.created_at).toMatch(/\+00:00$/);
  });

  it("pages with meta (default 20) and filters by status_code, type and time", async () => {
    const a = await createAccount();
    for (let i = 0; i < 22; i++) await call("/v1/me", { headers: a.headers });
    await call("/v1/keys/999999", { headers: a.headers });
    await waitForLogs(a.headers, 23);

    const first = await json(await call("/v1/logs", { headers: a.headers }));
    expect(first.data).toHaveLength(20);
    expect(first.meta).toMatchObject({ pageSize: 20, current: 1 });
    expect(first.meta.total).toBeGreaterThanOrEqual(23);

    const page2 = await json(await call("/v1/logs?page=2&limit=20", { headers: a.headers }));
    expect(page2.meta.current).toBe(2);
    expect(page2.data[0].id).not.toBe(first.data[0].id);

    const only404 = await json(await call("/v1/logs?status_code=404", { headers: a.headers }));
    expect(only404.data.every((l: any) => l.status_code === 404)).toBe(true);
    expect(only404.meta.total).toBe(1);

    const keys = await json(await call("/v1/logs?type=keys", { headers: a.headers }));
    expect(keys.data.every((l: any) => l.endpoint.startsWith("/v1/keys"))).toBe(true);

    const future = await json(await call("/v1/logs?start=2999-01-01", { headers: a.headers }));
    expect(future.meta.total).toBe(0);
    const bad = await call("/v1/logs?start=yesterday", { headers: a.headers });
    expect(bad.status).toBe(400);
    expect((await json(bad)).errors.message).toContain("start");
  });

  it("reads one entry and hides other accounts' entries", async () => {
    const a = await createAccount();
    const b = await createAccount();
    await call("/v1/me", { headers: a.headers });
    const body = await waitForLogs(a.headers, 1);
    const id = body.data.at(-1).id;
    const one = await call(`/v1/logs/${id}`, { headers: a.headers });
    expect((await json(one)).data.id).toBe(id);
    expect((await call(`/v1/logs/${id}`, { headers: b.headers })).status).toBe(404);
  });
});

describe("/v1/me and /v1/usage", () => {
  it("reports the account, plan, caps and balances", async () => {
    const a = await createAccount({ plan: "basic" });
    const me = await json(await call("/v1/me", { headers: a.headers }));
    expect(me.data.pricing).toMatchObject({
      name: "Basic",
      available_keys: 5,
      available_teams: 2,
      price_monthly: "49",
    });
    expect(typeof me.data.pricing.available_leads).toBe("number");
    expect(typeof me.data.pricing.available_list).toBe("number");
  });

  it("answers usage in both documented shapes", async () => {
    const a = await createAccount();
    const usage = await json(await call("/v1/usage", { headers: a.headers }));
    expect(Array.isArray(usage.data)).toBe(true);
    expect(usage.total).toMatchObject({ search: 0, verifier: 0, source_api: 0 });
    expect((await call("/v1/usage?start=nope", { headers: a.headers })).status).toBe(400);
  });
});

describe("/v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document generated from the route declarations", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/keys", "/keys/{id}", "/keys/{id}/reset", "/me", "/usage", "/logs", "/logs/{id}"]),
    );
    expect(doc.paths["/logs"].get.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(["page", "limit", "type", "status_code", "start", "end"]),
    );
  });
});
