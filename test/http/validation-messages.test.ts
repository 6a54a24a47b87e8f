import { describe, expect, it } from "vitest";
import { surfaceLogRow } from "../../src/capabilities/core/surface-log.js";
import { loggedUri, maskValue } from "../../src/platform/log-uri.js";
import { call, createAccount, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";

describe("validation messages", () => {
  it("applies the query form's limits to a parameter given in the path", async () => {
    const a = await createAccount({ plan: "scale" });
    const long = `${"a".repeat(5000)}@acme.test`;
    const res = await call(`/v1/email-verifier/${long}`, { headers: a.headers });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.message).toBe(
      "The parameter 'email' is invalid: is far longer than any email address.",
    );
  });

  it("names a repeated parameter, a fractional limit and a wrong JSON type, each in its own words", async () => {
    const a = await createAccount({ plan: "scale" });
    const repeated = await json(
      await call("/v1/email-verifier?email=a@acme.test&email=b@acme.test", { headers: a.headers }),
    );
    expect(repeated.errors.message).toBe("The parameter 'email' was given 2 times; send it once.");
    const fractional = await json(await call("/v1/similar?domain=acme.test&limit=2.5", { headers: a.headers }));
    expect(fractional.errors.message).toBe("The parameter 'limit' is invalid: expected a whole number, got 2.5.");
    const wrongType = await call("/v1/reveal/search", {
      method: "POST",
      headers: { ...a.headers, "content-type": "application/json" },
      body: JSON.stringify({ page: "two" }),
    });
    expect(wrongType.status).toBe(400);
    expect((await json(wrongType)).errors.message).toBe("The parameter 'page' must be a number, not a string.");
    const missing = await json(await call("/v1/email-verifier", { headers: a.headers }));
    expect(missing.errors.message).toBe("The parameter 'email' is required.");
  });
});

describe("request-log URIs", () => {
  it("keeps path and parameter names, masks addresses, phones and names, cuts long values", () => {
    const declared = ["domain", "first_name", "last_name", "full_name", "phone", "limit"];
    expect(loggedUri(new URL("https://api.test/v1/email-verifier/jane.doe@acme.com"), declared)).toBe(
      "/v1/email-verifier/j***@acme.com",
    );
    expect(
      loggedUri(new URL("https://api.test/v1/email-finder?domain=acme.com&first_name=Jane&last_name=Doe"), declared),
    ).toBe("/v1/email-finder?domain=acme.com&first_name=J***&last_name=D***");
    expect(loggedUri(new URL("https://api.test/v1/phone-validator?phone=%2B1%20415%20555%200142"), declared)).toBe(
      "/v1/phone-validator?phone=***42",
    );
    expect(loggedUri(new URL("https://api.test/v1/email-finder?full_name=Jane%20Doe&domain=acme.com"), declared)).toBe(
      "/v1/email-finder?full_name=J***&domain=acme.com",
    );
    const long = loggedUri(
      new URL(`https://api.test/v1/domain-search?domain=${"x".repeat(5000)}.com&limit=10`),
      declared,
    );
    expect(long.length).toBeLessThan(120);
    expect(long).toMatch(/^\/v1\/domain-search\?domain=x{64}%E2%80%A6&limit=10$/);
    expect(maskValue("call me at jane@acme.com please", "q")).toBe("call me at j***@acme.com please");
  });

  it("keeps plain path words as they are, and still cuts one longer than 64 characters or masks a number in the path", () => {
    expect(loggedUri(new URL("https://api.test/v1/phone-validator"), [])).toBe("/v1/phone-validator");
    expect(loggedUri(new URL(`https://api.test/v1/people/${"a".repeat(80)}`), [])).toBe(
      `/v1/people/${"a".repeat(64)}%E2%80%A6`,
    );
    expect(loggedUri(new URL("https://api.test/v1/phone/14155550142"), [])).toBe("/v1/phone/***42");
  });

  it("masks an address whose first character lies outside the BMP without splitting it (was a 500: URI malformed)", async () => {
    expect(loggedUri(new URL("https://api.test/v1/team/members/%F0%90%A0%A9x%40acme.com"), [])).toBe(
      "/v1/team/members/%F0%90%A0%A9***@acme.com",
    );
    const a = await createAccount({ plan: "scale" });
    const res = await call("/v1/team/members/%F0%90%A0%A9%EF%BB%A5%40%F0%96%A8%A1", {
      method: "PATCH",
      headers: { ...a.headers, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBeLessThan(500);
  });

  it("stores only the parameters the route declares: credentials appended to a URL are dropped, name and value", () => {
    const url = new URL(
      "https://api.test/v1/me?access_token=at-SECRET1&refresh_token=rt-SECRET2&client_secret=cs-SECRET3&code=SECRET4&token=SECRET5&secret=SECRET6&key=SECRET7&api_key=SECRET8&password=SECRET9",
    );
    expect(loggedUri(url, [])).toBe("/v1/me");
    const mixed = loggedUri(
      new URL("https://api.test/v1/email-verifier?email=jane@acme.com&access_token=SECRET&X-Service-Secret=SECRET"),
      ["email"],
    );
    expect(mixed).toBe("/v1/email-verifier?email=j***@acme.com");
  });

  it("masks the query, fragment and user info inside a declared URL value (a webhook_url often carries a token)", () => {
    const uri = loggedUri(
      new URL(
        `https://api.test/v1/email-verifier?email=a@b.co&webhook_url=${encodeURIComponent("https://u:pw@hooks.test/in/x?token=SECRET&sig=SECRET2#frag")}`,
      ),
      ["email", "webhook_url"],
    );
    expect(decodeURIComponent(uri)).toBe(
      "/v1/email-verifier?email=a***@b.co&webhook_url=https://***@hooks.test/in/x?token=***&sig=***#***",
    );
    expect(uri).not.toMatch(/SECRET|pw|frag/);
  });

  it("drops undeclared query parameters from real /v1 log rows, and keeps the declared ones masked", async () => {
    const a = await createAccount({ plan: "scale" });
    await call("/v1/me?access_token=at-LEAK1&client_secret=cs-LEAK2&code=LEAK3", { headers: a.headers });
    await call("/v1/email-verifier?email=mask.me@acme-verify.test&refresh_token=rt-LEAK4&key=LEAK5", {
      headers: a.headers,
    });
    let body: any;
    await settle(async () => {
      body = await json(await call("/v1/logs?limit=10", { headers: a.headers }));
      return body.meta.total >= 2;
    });
    const uris = body.data.map((l: any) => l.uri);
    expect(uris).toContain("/v1/me");
    expect(uris).toContain("/v1/email-verifier?email=m***@acme-verify.test");
    expect(JSON.stringify(body)).not.toMatch(/LEAK|access_token|client_secret|refresh_token/);
  });

  it("masks personal values in agent-surface and bulk log rows as on /v1", () => {
    const cap = {
      label: "Email Verifier",
      usageCategory: "verifier",
      agentPath: "/email-verifier",
      paths: ["/email-verifier"],
    } as never;
    const call = { status: 200, billed: true, durationMs: 5 };
    const agent = surfaceLogRow({ accountId: 1, surface: "agent" }, cap, { email: "jane.doe@acme.com" }, call);
    expect(agent.uri).toBe("/email-verifier?email=j***@acme.com");
    const bulk = surfaceLogRow(
      { accountId: 1, surface: "bulk" },
      cap,
      { email: "jane.doe@acme.com", full_name: "Jane Doe" },
      call,
    );
    expect(bulk.uri).toBe("/v1/email-verifier?email=j***@acme.com&full_name=J***");
  });

  it("stores the masked form in the account's log rows", async () => {
    const a = await createAccount({ plan: "scale" });
    await call("/v1/email-verifier?email=jane.secret@acme-verify.test", { headers: a.headers });
    let body: any;
    await settle(async () => {
      body = await json(await call("/v1/logs?limit=10", { headers: a.headers }));
      return body.meta.total >= 1;
    });
    const row = body.data.find((l: any) => l.endpoint.includes("email-verifier"));
    expect(row.uri).toBe("/v1/email-verifier?email=j***@acme-verify.test");
    expect(JSON.stringify(body)).not.toContain("jane.secret");
  });
});
