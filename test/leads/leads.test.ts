import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PLANS } from "../../src/limits/plans.js";
import { createAccount } from "../support/accounts.js";
import { send } from "./support.js";

describe("leads", () => {
  it("saves a lead with every field, reads it back and lists it with classic meta", async () => {
    const { headers } = await createAccount();
    const list = await send("POST", "/v1/leads_lists", headers, { name: "Prospects" });
    await send("POST", "/v1/attributes", headers, { name: "Deal size", type: "number" });
    const created = await send("POST", "/v1/leads", headers, {
      email: "Ada.Lovelace@Example.test",
      list_id: list.body.data.id,
      first_name: "Ada",
      last_name: "Lovelace",
      country: "GB",
      website_url: "https://example.test",
      company: "Analytical Engines",
      position: "Engineer",
      phone_number: "+44 20 7946 0000",
      twitter: "https://microblog.test/ada",
      linkedin_url: "https://network.test/in/ada",
      notes: "Met at the conference",
      score: 87,
      lead_source: "finder",
      attributes: { deal_size: "12000" },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: true, data: { email: "ada.lovelace@example.test" } });
    const id = created.body.data.id;

    const one = await send("GET", `/v1/leads/${id}`, headers);
    expect(one.status).toBe(200);
    expect(one.body.data.leads).toHaveLength(1);
    expect(one.body.data.leads[0]).toMatchObject({
      id,
      email: "ada.lovelace@example.test",
      list_id: list.body.data.id,
      first_name: "Ada",
      website_url: "https://example.test",
      phone_number: "+44 20 7946 0000",
      microblog: "https://microblog.test/ada",
      twitter: "https://microblog.test/ada",
      professional_network: "https://network.test/in/ada",
      linkedin: "https://network.test/in/ada",
      score: 87,
      lead_source: "finder",
      sync: { sync_hubspot: false },
      sync_hubspot: false,
      leads_list: { list_id: list.body.data.id, name: "Prospects", size: 1 },
      attributes: { deal_size: 12000 },
    });
    expect(one.body.data.leads[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);

    const page = await send("GET", "/v1/leads", headers);
    expect(page.body.data.meta).toEqual({ total: 1, pageSize: 10, current: 1, total_pages: 1 });
    expect(page.body.data.leads.map((l: { id: number }) => l.id)).toEqual([id]);
  });

  it("pages, filters by list and domain, and sorts", async () => {
    const { headers } = await createAccount();
    const list = await send("POST", "/v1/leads_lists", headers, { name: "A" });
    for (const [email, first] of [
      ["c@one.test", "Cy"],
      ["a@one.test", "Al"],
      ["b@two.test", "Bo"],
    ]) {
      await send("POST", "/v1/leads", headers, {
        email,
        first_name: first,
        list_id: email.endsWith("one.test") ? list.body.data.id : undefined,
      });
    }
    const sorted = await send("GET", "/v1/leads?sortby=first_name&direction=asc&limit=2", headers);
    expect(sorted.body.data.leads.map((l: { first_name: string }) => l.first_name)).toEqual(["Al", "Bo"]);
    expect(sorted.body.data.meta).toEqual({ total: 3, pageSize: 2, current: 1, total_pages: 2 });
    const second = await send("GET", "/v1/leads?sortby=first_name&direction=asc&limit=2&page=2", headers);
    expect(second.body.data.leads.map((l: { first_name: string }) => l.first_name)).toEqual(["Cy"]);
    const inList = await send("GET", `/v1/leads?list=${list.body.data.id}`, headers);
    expect(inList.body.data.meta.total).toBe(2);
    const byDomain = await send("GET", "/v1/leads?domain=two.test", headers);
    expect(byDomain.body.data.leads.map((l: { email: string }) => l.email)).toEqual(["b@two.test"]);
    const bad = await send("GET", "/v1/leads?sortby=password", headers);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.type).toBe("params_invalid");
  });

  it("answers 422 for a duplicate email, on create and on update", async () => {
    const { headers } = await createAccount();
    await send("POST", "/v1/leads", headers, { email: "dup@example.test" });
    const again = await send("POST", "/v1/leads", headers, { email: "DUP@example.test" });
    expect(again.status).toBe(422);
    expect(again.body.errors).toMatchObject({ type: "duplicate_record", code: 422 });
    const other = await send("POST", "/v1/leads", headers, { email: "other@example.test" });
    const clash = await send("PUT", `/v1/leads/${other.body.data.id}`, headers, { email: "dup@example.test" });
    expect(clash.status).toBe(422);
  });

  it("refuses bad bodies: no email, unknown fields, conflicting aliases, unknown attributes, wrong attribute types, a foreign list", async () => {
    const { headers } = await createAccount();
    const stranger = await createAccount();
    const foreignList = await send("POST", "/v1/leads_lists", stranger.headers, { name: "Theirs" });
    await send("POST", "/v1/attributes", headers, { name: "Signed on", type: "date" });
    const cases: [unknown, string][] = [
      [{}, "email"],
      [{ email: "x@example.test", password: "x" }, "password"],
      [{ email: "x@example.test", twitter: "a", microblog: "b" }, "twitter"],
      [{ email: "x@example.test", attributes: { nope: "1" } }, "attributes.nope"],
      [{ email: "x@example.test", attributes: { signed_on: "yesterday-ish" } }, "attributes.signed_on"],
      [{ email: "x@example.test", list_id: foreignList.body.data.id }, "list_id"],
      [{ email: "x@example.test", score: 101 }, "score"],
    ];
    for (const [body, name] of cases) {
      const res = await send("POST", "/v1/leads", headers, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.type).toBe("params_invalid");
      expect(res.body.errors.message).toContain(name);
    }
  });

  it("updates only the fields sent, answers {status, message}, and refuses an empty update", async () => {
    const { headers } = await createAccount();
    const created = await send("POST", "/v1/leads", headers, {
      email: "u@example.test",
      first_name: "Old",
      company: "Keep",
    });
    const id = created.body.data.id;
    const updated = await send("PUT", `/v1/leads/${id}`, headers, {
      first_name: "New",
      linkedin: "https://network.test/in/u",
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ status: true, message: expect.any(String) });
    const { body } = await send("GET", `/v1/leads/${id}`, headers);
    expect(body.data.leads[0]).toMatchObject({
      first_name: "New",
      company: "Keep",
      professional_network: "https://network.test/in/u",
    });
    const empty = await send("PUT", `/v1/leads/${id}`, headers, {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors.type).toBe("params_invalid");
  });

  it("deletes a lead, and answers 404 unknown_record for a missing or foreign one", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const created = await send("POST", "/v1/leads", owner.headers, { email: "gone@example.test" });
    const id = created.body.data.id;
    for (const method of ["GET", "PUT", "DELETE"]) {
      const res = await send(method, `/v1/leads/${id}`, other.headers, method === "PUT" ? { notes: "x" } : undefined);
      expect(res.status, method).toBe(404);
      expect(res.body.errors.type).toBe("unknown_record");
    }
    const deleted = await send("DELETE", `/v1/leads/${id}`, owner.headers, {});
    expect(deleted.body).toMatchObject({ status: true });
    expect((await send("GET", `/v1/leads/${id}`, owner.headers)).status).toBe(404);
  });

  it("stops at the plan's available_leads with a 422 naming the cap", async () => {
    const { accountId, headers } = await createAccount({ plan: "free" });
    const cap = PLANS.free.caps.leads;
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
       INSERT INTO leads (account_id, email, email_key, domain) SELECT ?1, 'l' || i || '@bulk.test', 'l' || i || '@bulk.test', 'bulk.test' FROM n`,
    )
      .bind(accountId, cap)
      .run();
    const res = await send("POST", "/v1/leads", headers, { email: "one-more@example.test" });
    expect(res.status).toBe(422);
    expect(res.body.errors.type).toBe("leads_limit_reached");
    expect(res.body.errors.message).toContain(String(cap));
  });

  it("treats a literal {id} segment as no id", async () => {
    const { headers } = await createAccount();
    await send("POST", "/v1/leads/%7Bid%7D", headers, { email: "literal@example.test" });
    const listed = await send("GET", "/v1/leads/%7Bid%7D", headers);
    expect(listed.status).toBe(200);
    expect(listed.body.data.leads.map((l: { email: string }) => l.email)).toEqual(["literal@example.test"]);
    expect((await send("POST", "/v1/leads/12", headers, { email: "x@example.test" })).status).toBe(404);
  });
});

describe("lead lists", () => {
  it("creates, lists, reads, renames and deletes a list", async () => {
    const { headers } = await createAccount();
    const created = await send("POST", "/v1/leads_lists", headers, { name: "Conference" });
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    expect(created.body.data).toEqual({ id, list_id: id, name: "Conference" });

    const all = await send("GET", "/v1/leads_lists", headers);
    expect(all.body.data.list_leads).toEqual([
      expect.objectContaining({ id, name: "Conference", favorite: false, type: "campaigns", size: 0 }),
    ]);

    const one = await send("GET", `/v1/leads_lists/${id}`, headers);
    expect(Array.isArray(one.body.data)).toBe(true);
    expect(one.body.data).toHaveLength(1);
    expect(one.body.data[0]).toMatchObject({ id, name: "Conference" });

    const renamed = await send("PUT", `/v1/leads_lists/${id}`, headers, { name: "Conference 2027" });
    expect(renamed.body).toMatchObject({ status: true, message: expect.any(String) });
    expect((await send("GET", `/v1/leads_lists/${id}`, headers)).body.data[0].name).toBe("Conference 2027");

    const lead = await send("POST", "/v1/leads", headers, { email: "in-list@example.test", list_id: id });
    expect((await send("DELETE", `/v1/leads_lists/${id}`, headers, {})).body).toMatchObject({ status: true });
    expect((await send("GET", `/v1/leads_lists/${id}`, headers)).status).toBe(404);
    const kept = await send("GET", `/v1/leads/${lead.body.data.id}`, headers);
    expect(kept.body.data.leads[0]).toMatchObject({ list_id: null, leads_list: null });
  });

  it("answers 422 for a duplicate name and at the plan's available_list", async () => {
    const { headers } = await createAccount({ plan: "free" });
    await send("POST", "/v1/leads_lists", headers, { name: "Same" });
    const dup = await send("POST", "/v1/leads_lists", headers, { name: " same " });
    expect(dup.status).toBe(422);
    expect(dup.body.errors.type).toBe("duplicate_record");
    for (let i = 1; i < PLANS.free.caps.lists; i++)
      expect((await send("POST", "/v1/leads_lists", headers, { name: `L${i}` })).status).toBe(200);
    const over = await send("POST", "/v1/leads_lists", headers, { name: "One too many" });
    expect(over.status).toBe(422);
    expect(over.body.errors.type).toBe("lists_limit_reached");
    expect(over.body.errors.message).toContain(String(PLANS.free.caps.lists));
  });

  it("handles the JavaScript client's literal {id} calls and empty bodies", async () => {
    const { headers } = await createAccount();
    const empty = await send("POST", "/v1/leads_lists/%7Bid%7D", headers, {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toMatchObject({ type: "params_invalid", code: 400 });
    const created = await send("POST", "/v1/leads_lists/%7Bid%7D", headers, { name: "Via template" });
    expect(created.status).toBe(200);
    const listed = await send("GET", "/v1/leads_lists/%7Bid%7D", headers);
    expect(listed.body.data.list_leads.map((l: { name: string }) => l.name)).toEqual(["Via template"]);
    const noChange = await send("PUT", `/v1/leads_lists/${created.body.data.id}`, headers, {});
    expect(noChange.status).toBe(400);
    expect(noChange.body.errors.type).toBe("params_invalid");
  });
});

describe("lead attributes", () => {
  it("is served under /v1/attributes and /v1/leads/attributes with a read-only identifier", async () => {
    const { headers } = await createAccount();
    const created = await send("POST", "/v1/leads/attributes", headers, { name: "Deal Size (€)", type: "number" });
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    expect(created.body.data).toMatchObject({ name: "Deal Size (€)", identifier: "deal_size", type: "number" });

    for (const prefix of ["/v1/attributes", "/v1/leads/attributes"]) {
      const all = await send("GET", prefix, headers);
      expect(all.body.data.attributes.map((a: { id: number }) => a.id)).toEqual([id]);
      expect(all.body.data.meta).toMatchObject({ total: 1 });
      const one = await send("GET", `${prefix}/${id}`, headers);
      expect(one.body.data.attributes).toHaveLength(1);
    }
    const literal = await send("GET", "/v1/leads/attributes/%7Bid%7D", headers);
    expect(literal.body.data.attributes).toHaveLength(1);

    const renamed = await send("PUT", `/v1/attributes/${id}`, headers, { name: "Contract value", type: "string" });
    expect(renamed.body).toMatchObject({ status: true });
    const after = (await send("GET", `/v1/attributes/${id}`, headers)).body.data.attributes[0];
    expect(after).toMatchObject({ name: "Contract value", identifier: "deal_size", type: "string" });
    const setIdentifier = await send("PUT", `/v1/attributes/${id}`, headers, { identifier: "other" });
    expect(setIdentifier.status).toBe(400);
    expect((await send("PUT", `/v1/leads/attributes/${id}`, headers, {})).status).toBe(400);
    expect((await send("POST", "/v1/leads/attributes/%7Bid%7D", headers, {})).status).toBe(400);
    expect((await send("POST", "/v1/attributes", headers, { name: "x", type: "boolean" })).status).toBe(400);
  });

  it("removes a deleted attribute's values from leads", async () => {
    const { headers } = await createAccount();
    const attr = await send("POST", "/v1/attributes", headers, { name: "Tier" });
    const lead = await send("POST", "/v1/leads", headers, { email: "tier@example.test", attributes: { tier: "gold" } });
    expect(lead.body.data.attributes).toEqual({ tier: "gold" });
    expect((await send("DELETE", `/v1/attributes/${attr.body.data.id}`, headers, {})).body).toMatchObject({
      status: true,
    });
    expect((await send("GET", `/v1/leads/${lead.body.data.id}`, headers)).body.data.leads[0].attributes).toEqual({});
    expect((await send("GET", `/v1/attributes/${attr.body.data.id}`, headers)).status).toBe(404);
  });

  it("answers 422 for a duplicate name and at the plan's cap", async () => {
    const { headers } = await createAccount({ plan: "free" });
    await send("POST", "/v1/attributes", headers, { name: "Region" });
    expect((await send("POST", "/v1/attributes", headers, { name: "REGION" })).status).toBe(422);
    for (let i = 1; i < PLANS.free.caps.attributes; i++)
      expect((await send("POST", "/v1/attributes", headers, { name: `A${i}` })).status).toBe(200);
    const over = await send("POST", "/v1/attributes", headers, { name: "Too many" });
    expect(over.status).toBe(422);
    expect(over.body.errors.type).toBe("attributes_limit_reached");
    expect(over.body.errors.message).toContain(String(PLANS.free.caps.attributes));
  });
});
