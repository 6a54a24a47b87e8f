import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { claims } from "../../src/db/schema-index.js";
import { call, createAccount, json } from "../support/accounts.js";

async function verificationsUsed(headers: Record<string, string>): Promise<number> {
  const me = await json(await call("/v1/me", { headers }));
  return me.data.requests.verifications.used;
}

describe("GET /v1/email-verifier", () => {
  it("wire contract §6.1: data.email is an object holding the verdict fields, with data.sources[] beside it, on ?email= and /{email}", async () => {
    const { headers } = await createAccount();
    for (const path of [
      "/v1/email-verifier?email=jane.doe%40acme-verify.test",
      "/v1/email-verifier/jane.doe@acme-verify.test",
    ]) {
      const res = await call(path, { headers });
      expect(res.status, path).toBe(200);
      const { data } = await json(res);
      expect(Object.keys(data).sort()).toEqual(["email", "sources"]);
      expect(typeof data.email).toBe("object");
      expect(data.email.email).toBe("jane.doe@acme-verify.test");
      for (const key of [
        "status",
        "result",
        "score",
        "regex",
        "gibberish",
        "disposable",
        "webmail",
        "mx_records",
        "mx_check",
        "mx",
        "smtp_provider",
        "smtp_server",
        "smtp_check",
        "accept_all",
        "block",
        "greylisted",
        "whois",
        "smtp_check_run",
        "note",
        "reason",
        "did_you_mean",
      ]) {
        expect(data.email, key).toHaveProperty(key);
      }
      expect(data.email).not.toHaveProperty("sources");
      expect(data.email.mx.records.length).toBeGreaterThan(0);
      expect(data.email.mx_check).toBe(data.email.mx_records);
      expect(Array.isArray(data.sources)).toBe(true);
      expect(data.email.result).not.toBe("deliverable");
      expect(data.email.smtp_check_run).toBe(false);
    }
  });

  it("wire contract §6.1: the OpenAPI response schema declares data.email as the verdict object and data.sources as an array", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    const schema = doc.paths["/email-verifier"].get.responses["200"].content["application/json"].schema;
    const resolve = (s: { $ref?: string }) => (s.$ref ? doc.components.schemas[s.$ref.split("/").pop()!] : s);
    const data = resolve(resolve(schema).properties.data);
    expect(resolve(data.properties.email).type).toBe("object");
    expect(resolve(data.properties.email).properties.status.enum).toContain("accept_all");
    expect(data.properties.sources.type).toBe("array");
  });

  it("keeps a literal + in a path email (clients send it unencoded)", async () => {
    const { headers } = await createAccount();
    const { data } = await json(await call("/v1/email-verifier/jane+news@acme-verify.test", { headers }));
    expect(data.email.email).toBe("jane+news@acme-verify.test");
    expect(data.email.regex).toBe(true);
  });

  it("tolerates the JavaScript client's GET body `null`", async () => {
    const { headers } = await createAccount();
    const res = await call("/v1/email-verifier?email=jane%40acme-verify.test", {
      headers: { ...headers, "content-type": "application/json" },
      method: "GET",
    });
    expect(res.status).toBe(200);
  });

  it("a malformed address is a 200 invalid, not billed (invalid input costs nothing)", async () => {
    const { headers } = await createAccount();
    const before = await verificationsUsed(headers);
    const res = await call("/v1/email-verifier?email=not-an-email", { headers });
    expect(res.status).toBe(200);
    expect((await json(res)).data.email).toMatchObject({
      status: "invalid",
      result: "undeliverable",
      regex: false,
      reason: "invalid_syntax",
    });
    expect(await verificationsUsed(headers)).toBe(before);
  });

  it("a well-formed address whose domain does not exist is a definitive, billed invalid", async () => {
    const { headers } = await createAccount();
    const before = await verificationsUsed(headers);
    const res = await call("/v1/email-verifier?email=nobody%40gone-verify.test", { headers });
    expect((await json(res)).data.email).toMatchObject({ status: "invalid", reason: "no_such_domain", regex: true });
    expect(await verificationsUsed(headers)).toBe(before + 1);
  });

  it("an open verdict (SMTP not run) is not billed", async () => {
    const { headers } = await createAccount();
    const before = await verificationsUsed(headers);
    expect(
      (await json(await call("/v1/email-verifier?email=jane%40acme-verify.test", { headers }))).data.email.status,
    ).toBe("unknown");
    expect(await verificationsUsed(headers)).toBe(before);
  });

  it("a missing or empty email is a 400 params_invalid", async () => {
    const { headers } = await createAccount();
    for (const path of ["/v1/email-verifier", "/v1/email-verifier?email="]) {
      const res = await call(path, { headers });
      expect(res.status, path).toBe(400);
      const body = await json(res);
      expect(body.errors.type).toBe("params_invalid");
      expect(body.errors.message).toMatch(/email/);
    }
  });

  it("a DNS failure is a 503 with the error body, and nothing is billed", async () => {
    const { headers } = await createAccount();
    const before = await verificationsUsed(headers);
    const res = await call("/v1/email-verifier?email=jane%40servfail-verify.test", { headers });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("30");
    const body = await json(res);
    expect(body.errors).toMatchObject({ type: "dns_unavailable", code: 503 });
    expect(body.errors.message).toMatch(/servfail-verify\.test/);
    expect(await verificationsUsed(headers)).toBe(before);
  });

  it("a claimed address is a 451 claimed_email", async () => {
    const { headers } = await createAccount();
    await db(env.DB).insert(claims).values({ kind: "email", value: "gone.person@acme-verify.test" });
    const res = await call("/v1/email-verifier/Gone.Person@acme-verify.test", { headers });
    expect(res.status).toBe(451);
    expect((await json(res)).errors).toMatchObject({ type: "claimed_email", code: 451 });
  });

  it("is documented in the OpenAPI document under both paths", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/email-verifier", "/email-verifier/{email}", "/domain-status"]),
    );
  });

  it("requires credentials", async () => {
    expect((await call("/v1/email-verifier?email=jane%40acme-verify.test")).status).toBeGreaterThanOrEqual(400);
  });
});

describe("GET /v1/domain-status", () => {
  it("answers the flat body for webmail, disposable and company domains", async () => {
    const { headers } = await createAccount();
    const status = async (q: string) => json(await call(`/v1/domain-status?${q}`, { headers }));
    expect(await status("domain=gmail.com")).toEqual({ domain: "gmail.com", webmail: true, disposable: false });
    expect(await status("domain=Mailinator.com")).toEqual({
      domain: "mailinator.com",
      webmail: false,
      disposable: true,
    });
    expect(await status("domain=acme-verify.test")).toEqual({
      domain: "acme-verify.test",
      webmail: false,
      disposable: false,
    });
    expect(await status("email=jane%40outlook.com")).toEqual({
      domain: "outlook.com",
      webmail: true,
      disposable: false,
    });
  });

  it("reports an invalid domain as disposable", async () => {
    const { headers } = await createAccount();
    expect(await json(await call("/v1/domain-status?domain=not_a_domain", { headers }))).toEqual({
      domain: "not_a_domain",
      webmail: false,
      disposable: true,
    });
  });

  it("a missing domain is a 400", async () => {
    const { headers } = await createAccount();
    const res = await call("/v1/domain-status", { headers });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.type).toBe("params_invalid");
  });

  it("is never rate-limited", async () => {
    const { headers } = await createAccount({ plan: "free" });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => call("/v1/domain-status?domain=gmail.com", { headers })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
  });
});
