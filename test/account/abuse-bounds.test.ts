import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { companies } from "../../src/db/schema-index.js";
import { call, createAccount, json } from "../support/accounts.js";
import { indexOf } from "../support/index-db.js";
import { settleOn } from "../support/limiter.js";

const post = (path: string, headers: Record<string, string>, body: string) =>
  call(path, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });

describe("POST /v1/reveal/search bounds", () => {
  it("answers 400 with a clear message, not a 500, for more than 40 filter values", async () => {
    const a = await createAccount({ plan: "pro" });
    const many = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    for (const filters of [
      { industry: { include: many(50, "i"), exclude: many(50, "x") }, location_city: { include: ["austin"] } },
      { company: { include: many(41, "n") } },
      {
        founded: { include: many(30, "19").map((_, i) => String(1900 + i)) },
        location_city: { include: many(30, "c") },
      },
    ]) {
      const res = await post("/v1/reveal/search", a.headers, JSON.stringify({ filters }));
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.errors.type).toBe("params_invalid");
      expect(body.errors.message).toMatch(/at most 40 filter values/);
    }
  });

  it("binds the similar filter's domains as one parameter, whatever their number", async () => {
    const a = await createAccount({ plan: "pro" });
    const rows = Array.from({ length: 130 }, (_, i) => ({
      domain: `zebra${i}.test`,
      name: `Zebra ${i}`,
      industry: "Zebra Farming",
      keywords: JSON.stringify(["zebras", "stripes"]),
    }));
    for (const row of rows) await (await indexOf(row.domain)).insert(companies).values(row).onConflictDoNothing();
    const res = await post(
      "/v1/reveal/search",
      a.headers,
      JSON.stringify({ filters: { similar: { include: ["zebra0.test"] } }, limit: 5 }),
    );
    expect(res.status).toBe(200);
    expect((await json(res)).data.total).toBe(129);
  });
});

describe("/v1/keys", () => {
  it("answers 400 to POST /keys/{id} with a body that is not JSON", async () => {
    const a = await createAccount({ plan: "pro" });
    for (const body of ["{not json", "name=ci", '{"name": ']) {
      const res = await post("/v1/keys/%7Bid%7D", a.headers, body);
      expect(res.status, body).toBe(400);
      expect((await json(res)).errors.message).toMatch(/not valid JSON/);
    }
  });

  it("keeps the plan's key cap under 30 concurrent creates", async () => {
    const a = await createAccount({ plan: "free" }); // cap 2, one key already
    const results = await Promise.all(Array.from({ length: 30 }, () => post("/v1/keys", a.headers, "{}")));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 422)).toHaveLength(29);
    const keys = (await json(await call("/v1/keys", { headers: a.headers }))).data.keys;
    expect(keys).toHaveLength(2);
  });

  it("counts each request once against the fixed windows", async () => {
    const a = await createAccount({ plan: "pro" });
    const first = await call("/v1/keys", { headers: a.headers });
    expect(first.headers.get("x-ratelimit-remaining")).toBe("99");
    const one = await call(`/v1/keys/${a.keyId}`, { headers: a.headers });
    expect(one.headers.get("x-ratelimit-remaining")).toBe("98");
    const created = await post("/v1/keys", a.headers, "{}");
    expect(created.headers.get("x-ratelimit-remaining")).toBe("99");
  });
});

describe("credit packs", () => {
  it("gives an unused reservation taken from the pack back to the pack, not to the monthly allowance", async () => {
    const limiter = env.ACCOUNT_LIMITER.get(env.ACCOUNT_LIMITER.idFromName(`pack-refund-${crypto.randomUUID()}`));
    // Use up the free plan's 5 phone credits, then grant a pack of 10.
    const used = await limiter.admit({ plan: "free", group: null, cost: { phone: 5 } });
    if (!used.admitted) throw new Error("expected admission");
    await settleOn(limiter, used.reservationIds, true, {}, "free");
    await limiter.grantPack(10);
    // A found answer reserved 3 extra phone credits (enrich_mobile) from the pack, then needed none.
    const call3 = await limiter.admit({ plan: "free", group: null, cost: { phone: 3 } });
    if (!call3.admitted) throw new Error("expected admission");
    await settleOn(limiter, call3.reservationIds, true, { phone: -3 }, "free");
    const status = await limiter.status("free", []);
    expect(status.pack?.remaining).toBe(10);
    expect(status.balances.phone).toMatchObject({ used: 5, available: 10 });
  });

  it("refunds a not-found reservation split across allowance and pack to each source", async () => {
    const limiter = env.ACCOUNT_LIMITER.get(env.ACCOUNT_LIMITER.idFromName(`pack-refund-${crypto.randomUUID()}`));
    await limiter.grantPack(10);
    const r = await limiter.admit({ plan: "free", group: null, cost: { phone: 8 } });
    if (!r.admitted) throw new Error("expected admission");
    await settleOn(limiter, r.reservationIds, false, {}, "free");
    const status = await limiter.status("free", []);
    expect(status.pack?.remaining).toBe(10);
    expect(status.balances.phone.used).toBe(0);
  });
});
