import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { LOG_RETENTION_ROWS, logTypeOf, pruneRequestLogs, retentionCutoff } from "../../src/account/log-retention.js";
import { db } from "../../src/db/client.js";
import { requestLogs } from "../../src/db/schema.js";
import { usageDays } from "../../src/db/schema-contract.js";
import worker from "../../src/index.js";
import { DAY_MS, startOfUtcDay } from "../../src/platform/time.js";
import { call, createAccount, joinWorkspace, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";

const LEGACY_USAGE_KEYS = [
  "usage",
  "domain",
  "finder",
  "verifier",
  "technologies",
  "ip",
  "website",
  "bulk",
  "extension",
  "api",
  "mobile",
  "desktop",
  "sheets",
];
const NEW_USAGE_KEYS = [
  "id",
  "user_id",
  "search",
  "verifier",
  "phones",
  "sources",
  "similar",
  "technologies",
  "email_count",
  "export",
  "source_website",
  "source_bulk",
  "source_extension",
  "source_api",
  "source_sheets",
];
const NEW_TOTAL_KEYS = [
  "export",
  "search",
  "verifier",
  "sources",
  "source_website",
  "source_extension",
  "source_bulk",
  "source_api",
  "source_sheets",
];

function logRow(accountId: number, createdAt: number, extra: Partial<typeof requestLogs.$inferInsert> = {}) {
  return {
    accountId,
    actorAccountId: accountId,
    httpMethod: "GET",
    endpoint: "/v1/me",
    uri: "/v1/me",
    statusCode: 200,
    durationMs: 1,
    createdAt,
    ...extra,
  };
}

describe("docs/wire-contract.md §9.2 GET /v1/usage", () => {
  it("§9.2: answers the union of both shapes in data[] and total, with every day of the range present (zeros included)", async () => {
    const a = await createAccount();
    const today = startOfUtcDay(Date.now());
    await db(env.DB)
      .insert(usageDays)
      .values([
        { accountId: a.accountId, day: today - 2 * DAY_MS, capability: "domain-search", source: "api", count: 2 },
        { accountId: a.accountId, day: today - 2 * DAY_MS, capability: "email-verifier", source: "bulk", count: 3 },
        { accountId: a.accountId, day: today, capability: "email-finder", source: "api", count: 1 },
      ]);
    const start = new Date(today - 4 * DAY_MS).toISOString().slice(0, 10);
    const usage = await json(await call(`/v1/usage?start=${start}`, { headers: a.headers }));
    expect(usage.data).toHaveLength(5);
    expect(usage.data.map((d: { created_at: string }) => d.created_at)).toEqual(
      [0, 1, 2, 3, 4].map((n) => new Date(today - n * DAY_MS).toISOString().slice(0, 10)),
    );
    for (const row of usage.data) {
      for (const key of [...NEW_USAGE_KEYS, ...LEGACY_USAGE_KEYS]) expect(Number.isInteger(row[key]), key).toBe(true);
    }
    const [todayRow, , twoDaysAgo, threeDaysAgo] = usage.data;
    expect(todayRow).toMatchObject({ search: 1, finder: 1, domain: 0, usage: 1, api: 1, source_api: 1 });
    expect(twoDaysAgo).toMatchObject({
      search: 2,
      domain: 2,
      verifier: 3,
      usage: 5,
      api: 2,
      bulk: 3,
      source_api: 2,
      source_bulk: 3,
    });
    expect(threeDaysAgo).toMatchObject({ search: 0, verifier: 0, usage: 0, api: 0 });
    for (const key of [...NEW_TOTAL_KEYS, ...LEGACY_USAGE_KEYS])
      expect(Number.isInteger(usage.total[key]), key).toBe(true);
    expect(usage.total).toMatchObject({
      search: 3,
      domain: 2,
      finder: 1,
      verifier: 3,
      usage: 6,
      api: 3,
      bulk: 3,
      source_bulk: 3,
    });
  });

  it("§9.2: the default range is the last 30 days, every one of them present", async () => {
    const a = await createAccount();
    const usage = await json(await call("/v1/usage", { headers: a.headers }));
    expect(usage.data).toHaveLength(30);
    expect(usage.data.every((d: { usage: number; search: number }) => d.usage === 0 && d.search === 0)).toBe(true);
  });

  it("§9.2: refuses a reversed or unbounded range with 400 params_invalid", async () => {
    const a = await createAccount();
    for (const q of ["start=2026-02-01&end=2026-01-01", "start=2020-01-01&end=2026-01-01", "start=nope"]) {
      const res = await call(`/v1/usage?${q}`, { headers: a.headers });
      expect(res.status, q).toBe(400);
      expect((await json(res)).errors.type).toBe("params_invalid");
    }
  });

  it("§9.2: a billed call shows up in usage once settled", async () => {
    const a = await createAccount();
    // A definitive verdict on a well-formed address (its domain does not exist) is billed.
    expect((await call("/v1/email-verifier?email=nobody%40gone-verify.test", { headers: a.headers })).status).toBe(200);
    await settle(async () => (await json(await call("/v1/usage", { headers: a.headers }))).total.verifier === 1);
    const usage = await json(await call("/v1/usage", { headers: a.headers }));
    expect(usage.data[0]).toMatchObject({ verifier: 1, usage: 1, api: 1, source_api: 1 });
  });
});

describe("docs/wire-contract.md §9.1 GET /v1/me", () => {
  it("§9.1: teams.limit is an object of integers and the legacy available/used/payment_status/time fields are typed", async () => {
    const a = await createAccount({ plan: "basic" });
    const me = (await json(await call("/v1/me", { headers: a.headers }))).data;
    for (const k of ["search", "verifier", "domain", "finder"])
      expect(Number.isInteger(me.teams.limit[k]), k).toBe(true);
    expect(me.teams.limit.verifier).toBe(me.pricing.available_verifications);
    expect(me.teams.team_id).toBeNull();
    expect(Number.isInteger(me.available)).toBe(true);
    expect(me.available).toBe(me.pricing.available_searches);
    expect(Number.isInteger(me.used)).toBe(true);
    expect(me.payment_status).toBe(true);
    expect(me.time).toEqual({
      date: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/),
      timezone_type: 3,
      timezone: "UTC",
    });
    expect(typeof me.pricing.price_monthly).toBe("string");
    expect(Number.isInteger(me.pricing.pricing_id)).toBe(true);
  });

  it("§9.1: a workspace member sees its workspace id in teams.team_id; a free account is not paying", async () => {
    const owner = await createAccount({ plan: "growth" });
    const member = await createAccount({ plan: "free" });
    await joinWorkspace(owner.accountId, member.accountId);
    const me = (await json(await call("/v1/me", { headers: member.headers }))).data;
    expect(Number.isInteger(me.teams.team_id)).toBe(true);
    expect(me.teams).toMatchObject({ role: "member", workspace: true });
    expect(me.teams.owner).toMatchObject({ available_teams: 5 });
    const ownerMe = (await json(await call("/v1/me", { headers: owner.headers }))).data;
    expect(ownerMe.teams.team_id).toBe(me.teams.team_id);
    const solo = await createAccount({ plan: "free" });
    expect((await json(await call("/v1/me", { headers: solo.headers }))).data.payment_status).toBe(false);
  });
});

describe("docs/wire-contract.md §9.3 GET /v1/logs", () => {
  it("§9.3: type is a string on every entry, account routes included, and source says API", async () => {
    const a = await createAccount();
    await call("/v1/me", { headers: a.headers });
    await call("/v1/keys", { headers: a.headers });
    await call("/v1/usage", { headers: a.headers });
    await call("/v1/email-verifier?email=not-an-email", { headers: a.headers });
    let body: any;
    await settle(async () => {
      body = await json(await call("/v1/logs?limit=100", { headers: a.headers }));
      return body.meta.total >= 4;
    });
    const byEndpoint = Object.fromEntries(
      body.data.map((l: { endpoint: string; type: string }) => [l.endpoint, l.type]),
    );
    expect(byEndpoint).toMatchObject({
      "/v1/me": "Account",
      "/v1/keys": "Keys",
      "/v1/usage": "Usage",
      "/v1/email-verifier": "Email Verifier",
    });
    expect(
      body.data.every((l: { type: unknown; source: string }) => typeof l.type === "string" && l.source === "API"),
    ).toBe(true);
  });

  it("§9.3: a row written before types were recorded still answers a string type", async () => {
    const a = await createAccount();
    await db(env.DB)
      .insert(requestLogs)
      .values(logRow(a.accountId, Date.now(), { endpoint: "/v1/leads_lists/:id", type: null }));
    const body = await json(await call("/v1/logs", { headers: a.headers }));
    expect(body.data.find((l: { endpoint: string }) => l.endpoint === "/v1/leads_lists/:id").type).toBe("Leads Lists");
    expect(logTypeOf("/v1/leads/attributes/:id")).toBe("Attributes");
    expect(logTypeOf("/v1/some-new-thing")).toBe("Some New Thing");
  });

  it("§9.3: source tells API, agent and bulk rows apart", async () => {
    const a = await createAccount();
    const now = Date.now();
    await db(env.DB)
      .insert(requestLogs)
      .values([
        logRow(a.accountId, now - 3, { source: "agent" }),
        logRow(a.accountId, now - 2, { source: "bulk" }),
        logRow(a.accountId, now - 1),
      ]);
    const body = await json(await call("/v1/logs", { headers: a.headers }));
    expect(body.data.map((l: { source: string }) => l.source).sort()).toEqual(["API", "Agent", "Bulk"]);
  });

  it("§9.3: serves only the last 1,000 requests of the last 3 months, and pruning deletes the rest", async () => {
    const a = await createAccount();
    const other = await createAccount();
    const now = Date.now();
    const rows = Array.from({ length: LOG_RETENTION_ROWS + 5 }, (_, i) => logRow(a.accountId, now - 60_000 - i * 1000));
    rows.push(logRow(a.accountId, retentionCutoff(now) - DAY_MS, { endpoint: "/v1/ancient" }));
    rows.push(logRow(other.accountId, now - 5000));
    for (let i = 0; i < rows.length; i += 10)
      await db(env.DB)
        .insert(requestLogs)
        .values(rows.slice(i, i + 10));

    const page = await json(await call("/v1/logs?limit=100&page=11", { headers: a.headers }));
    expect(page.meta.total).toBe(LOG_RETENTION_ROWS);
    expect(page.data).toHaveLength(0);
    const last = await json(await call("/v1/logs?limit=100&page=10", { headers: a.headers }));
    expect(last.data).toHaveLength(100);
    expect(last.data.some((l: { endpoint: string }) => l.endpoint === "/v1/ancient")).toBe(false);
    const oldest = await db(env.DB).select().from(requestLogs).where(eq(requestLogs.endpoint, "/v1/ancient")).get();
    expect((await call(`/v1/logs/${oldest!.id}`, { headers: a.headers })).status).toBe(404);

    // The log calls above are logged too; what must survive is the account's newest 1,000 rows.
    const newest = await db(env.DB)
      .select({ id: requestLogs.id })
      .from(requestLogs)
      .where(eq(requestLogs.accountId, a.accountId))
      .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
      .limit(LOG_RETENTION_ROWS)
      .all();
    const pruned = await pruneRequestLogs(env, now);
    expect(pruned.expired).toBeGreaterThanOrEqual(1);
    expect(pruned.overflow).toBeGreaterThanOrEqual(5);
    const left = await db(env.DB)
      .select({ id: requestLogs.id })
      .from(requestLogs)
      .where(eq(requestLogs.accountId, a.accountId))
      .all();
    expect(left.map((r) => r.id).sort()).toEqual(newest.map((r) => r.id).sort());
    expect(
      (await db(env.DB).select().from(requestLogs).where(eq(requestLogs.accountId, other.accountId)).all()).length,
    ).toBe(1);
  });
});

describe("retention cron (scheduled handler)", () => {
  it("§9.3: the scheduled run prunes expired log rows off the request path", async () => {
    const a = await createAccount();
    const now = Date.now();
    await db(env.DB)
      .insert(requestLogs)
      .values([
        logRow(a.accountId, retentionCutoff(now) - DAY_MS, { endpoint: "/v1/cron-old" }),
        logRow(a.accountId, now),
      ]);
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ scheduledTime: now, cron: "23 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const left = await db(env.DB)
      .select({ endpoint: requestLogs.endpoint })
      .from(requestLogs)
      .where(eq(requestLogs.accountId, a.accountId))
      .all();
    expect(left.map((r) => r.endpoint)).toEqual(["/v1/me"]);
  });
});

describe("docs/wire-contract.md §10.1 PUT /v1/keys and DELETE /v1/keys (no id)", () => {
  it("§10.1: PUT /v1/keys with the client's empty body gives the calling key a new secret, returned once", async () => {
    const a = await createAccount();
    const res = await call("/v1/keys", {
      method: "PUT",
      headers: { ...a.headers, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ status: true, data: { id: a.keyId, key: a.key } });
    expect(body.data.secret).not.toBe(a.secret);
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(401);
    expect(
      (await call("/v1/me", { headers: { "X-Service-Key": a.key, "X-Service-Secret": body.data.secret } })).status,
    ).toBe(200);
  });

  it("§10.1: PUT and DELETE /v1/keys take a key id in the body; DELETE without one revokes the calling key", async () => {
    const a = await createAccount();
    const created = await json(
      await call("/v1/keys", {
        method: "POST",
        headers: { ...a.headers, "content-type": "application/json" },
        body: JSON.stringify({ name: "second" }),
      }),
    );
    const second = { "X-Service-Key": created.data.key, "X-Service-Secret": created.data.secret };

    const reset = await json(
      await call("/v1/keys", {
        method: "PUT",
        headers: { ...a.headers, "content-type": "application/json" },
        body: JSON.stringify({ id: created.data.id }),
      }),
    );
    expect(reset.data.id).toBe(created.data.id);
    expect((await call("/v1/me", { headers: second })).status).toBe(401);
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(200);

    const revoke = await call("/v1/keys", {
      method: "DELETE",
      headers: { ...a.headers, "content-type": "application/json" },
      body: "{}",
    });
    expect(revoke.status).toBe(200);
    expect(await json(revoke)).toMatchObject({ status: true, message: expect.stringContaining(a.key) });
    expect((await call("/v1/me", { headers: a.headers })).status).toBe(401);
  });

  it("§10.1: an unknown or foreign key id answers 404 unknown_record, a malformed id 400", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const foreign = await call("/v1/keys", {
      method: "DELETE",
      headers: { ...a.headers, "content-type": "application/json" },
      body: JSON.stringify({ id: b.keyId }),
    });
    expect(foreign.status).toBe(404);
    expect((await json(foreign)).errors.type).toBe("unknown_record");
    const bad = await call("/v1/keys", {
      method: "PUT",
      headers: { ...a.headers, "content-type": "application/json" },
      body: JSON.stringify({ id: -3 }),
    });
    expect(bad.status).toBe(400);
    expect((await call("/v1/me", { headers: b.headers })).status).toBe(200);
  });

  it("§10.1: both are documented in the OpenAPI document", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    expect(Object.keys(doc.paths["/keys"])).toEqual(expect.arrayContaining(["get", "post", "put", "delete"]));
  });
});
