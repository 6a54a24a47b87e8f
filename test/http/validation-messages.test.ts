import { describe, expect, it, vi } from "vitest";
import { loggedUri, maskValue } from "../../src/account/log-uri.js";
import { call, createAccount, json } from "../support/accounts.js";

describe("validation messages", () => {
  it("applies the query form's limits to a parameter given in the path", async () => {
    const a = await createAccount({ plan: "scale" });
    const long = `${"a".repeat(5000)}@acme.test`;
    const res = await call(`/v1/email-verifier/${long}`, { headers: a.headers });
    expect(res.status).toBe(400);
    expect((await json(res)).errors.message).toBe("The parameter 'email' is invalid: is far longer than any email address.");
  });

  it("names a repeated parameter, a fractional limit and a wrong JSON type, each in its own words", async () => {
    const a = await createAccount({ plan: "scale" });
    const repeated = await json(await call("/v1/email-verifier?email=a@acme.test&email=b@acme.test", { headers: a.headers }));
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
    expect(loggedUri(new URL("https://api.test/v1/email-verifier/jane.doe@acme.com"))).toBe("/v1/email-verifier/j***@acme.com");
    expect(loggedUri(new URL("https://api.test/v1/email-finder?domain=acme.com&first_name=Jane&last_name=Doe"))).toBe(
      "/v1/email-finder?domain=acme.com&first_name=J***&last_name=D***",
    );
    expect(loggedUri(new URL("https://api.test/v1/phone-validator?phone=%2B1%20415%20555%200142"))).toBe("/v1/phone-validator?phone=***42");
    expect(loggedUri(new URL("https://api.test/v1/email-finder?full_name=Jane%20Doe&domain=acme.com"))).toBe("/v1/email-finder?full_name=J***&domain=acme.com");
    const long = loggedUri(new URL(`https://api.test/v1/domain-search?domain=${"x".repeat(5000)}.com&limit=10`));
    expect(long.length).toBeLessThan(120);
    expect(long).toMatch(/^\/v1\/domain-search\?domain=x{64}%E2%80%A6&limit=10$/);
    expect(maskValue("call me at jane@acme.com please", "q")).toBe("call me at j***@acme.com please");
  });

  it("stores the masked form in the account's log rows", async () => {
    const a = await createAccount({ plan: "scale" });
    await call("/v1/email-verifier?email=jane.secret@acme-verify.test", { headers: a.headers });
    let body: any;
    await vi.waitUntil(async () => {
      body = await json(await call("/v1/logs?limit=10", { headers: a.headers }));
      return body.meta.total >= 1;
    });
    const row = body.data.find((l: any) => l.endpoint.includes("email-verifier"));
    expect(row.uri).toBe("/v1/email-verifier?email=j***@acme-verify.test");
    expect(JSON.stringify(body)).not.toContain("jane.secret");
  });
});
