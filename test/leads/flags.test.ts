import { describe, expect, it } from "vitest";
import { createAccount } from "../support/accounts.js";
import { send } from "./support.js";

describe("flags", () => {
  it("records a report and lists the account's reports, newest first", async () => {
    const { headers } = await createAccount();
    const first = await send(
      "POST",
      "/v1/flag",
      { ...headers, "cf-connecting-ip": "198.51.100.1" },
      { flag_type: "email", value: "wrong@example.test", reason: "hard_bounce", comment: "bounced twice" },
    );
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: true,
      data: { flag_type: "email", value: "wrong@example.test", reason: "hard_bounce", comment: "bounced twice" },
    });
    await send(
      "POST",
      "/v1/flag",
      { ...headers, "cf-connecting-ip": "198.51.100.1" },
      { flag_type: "website", value: "https://old.test", reason: "broken_url" },
    );
    const listed = await send("GET", "/v1/flag?limit=1", { ...headers, "cf-connecting-ip": "198.51.100.1" });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((f: { flag_type: string }) => f.flag_type)).toEqual(["website"]);
    expect(listed.body.meta).toEqual({ total: 2, pageSize: 1, current: 1, total_pages: 2 });
  });

  it("refuses a reason that does not fit the type, an unknown type and a comment over 1,000 characters", async () => {
    const { headers } = await createAccount();
    const ip = { ...headers, "cf-connecting-ip": "198.51.100.2" };
    for (const [body, name] of [
      [{ flag_type: "phone", value: "+1 555", reason: "hard_bounce" }, "reason"],
      [{ flag_type: "person", value: "x", reason: "other" }, "flag_type"],
      [{ flag_type: "email", value: "x@example.test", reason: "other", comment: "x".repeat(1_001) }, "comment"],
      [{ flag_type: "email", reason: "other" }, "value"],
    ] as const) {
      const res = await send("POST", "/v1/flag", ip, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.type).toBe("params_invalid");
      expect(res.body.errors.message).toContain(name);
    }
  });

  it("allows 10 requests per minute per IP, then answers 429 with Retry-After", async () => {
    const { headers } = await createAccount();
    const ip = { ...headers, "cf-connecting-ip": "198.51.100.3" };
    for (let i = 0; i < 10; i++) expect((await send("GET", "/v1/flag", ip)).status).toBe(200);
    const limited = await send("POST", "/v1/flag", ip, {
      flag_type: "email",
      value: "x@example.test",
      reason: "other",
    });
    expect(limited.status).toBe(429);
    expect(limited.body.errors.type).toBe("rate_limit");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("the OpenAPI document", () => {
  it("declares the leads, lists, attributes, webhooks, deliveries and flag routes", async () => {
    const { body: doc } = await send("GET", "/v1/openapi.json", {});
    for (const path of [
      "/leads",
      "/leads/{id}",
      "/leads_lists",
      "/leads_lists/{id}",
      "/attributes",
      "/attributes/{id}",
      "/leads/attributes",
      "/leads/attributes/{id}",
      "/webhooks",
      "/webhooks/{id}",
      "/webhooks/{id}/enable",
      "/webhooks/{id}/disable",
      "/webhooks/{id}/deliveries",
      "/webhooks/secret",
      "/webhooks/secret/rotate",
      "/deliveries",
      "/flag",
    ]) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    expect(Object.keys(doc.paths["/leads"])).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(doc.paths["/flag"])).toEqual(expect.arrayContaining(["get", "post"]));
  });
});
