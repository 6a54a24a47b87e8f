import { env } from "cloudflare:workers";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { limiterFor } from "../../src/limits/admission.js";
import { ERROR_META_KEY } from "../../src/mcp/tools.js";
import { call, createAccount, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";
import { BASE, connect, rpc, workerFetch } from "./support.js";

const FIND_JANE = { domain: "acme-widgets.test", first_name: "Jane", last_name: "Cooper" };

async function searchCreditsUsed(accountId: number): Promise<number> {
  return (await limiterFor(env, accountId).balances("pro")).search.used;
}

async function logRows(accountId: number) {
  const { results } = await env.DB.prepare(
    "SELECT endpoint, uri, type, status_code, cost, source, api_key_id FROM request_logs WHERE account_id = ? ORDER BY id",
  )
    .bind(accountId)
    .all<{
      endpoint: string;
      uri: string;
      type: string;
      status_code: number;
      cost: number;
      source: string;
      api_key_id: number | null;
    }>();
  return results;
}

describe("POST /v1/mcp with an API key and secret", () => {
  it("initializes with the newest protocol revision the SDK speaks, the server's name and instructions", async () => {
    const a = await createAccount();
    const { client, transport } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(client.getServerVersion()).toMatchObject({ name: "contact-intelligence", version: "1.0.0" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(client.getInstructions()).toMatch(/30 days is free/);
    // Stateless: no session to keep.
    expect(transport.sessionId).toBeUndefined();
  });

  it("answers a tool call with the REST answer as structured content and a text version", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const result = await client.callTool({ name: "email-finder", arguments: FIND_JANE });
    expect(result.isError).toBeFalsy();
    const rest = await json(
      await call("/v1/email-finder?domain=acme-widgets.test&first_name=Jane&last_name=Cooper", { headers: a.headers }),
    );
    // The same answer as the REST call, but for the time of the verification (each call checks again).
    const checkedAtAnyTime = (body: any) => ({
      ...body,
      data: { ...body.data, verification: { ...body.data.verification, date: expect.stringMatching(/\+00:00$/) } },
    });
    expect(result.structuredContent).toEqual(checkedAtAnyTime(rest));
    expect(result.structuredContent).toMatchObject({
      data: { email: "jane.cooper@acme-widgets.test", score: 95, position: "Chief Technology Officer" },
    });
    const text = (result.content as { type: string; text: string }[])[0]!;
    expect(text.type).toBe("text");
    expect(text.text).toMatch(/^Email Finder: email: jane\.cooper@acme-widgets\.test, .*score: 95/);
    expect(JSON.parse(text.text.slice(text.text.indexOf("\n") + 1))).toEqual(result.structuredContent);
  });

  it("charges the account's credits once, and a repeat within 30 days is free, as /v1 does", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    expect(await searchCreditsUsed(a.accountId)).toBe(0);
    await client.callTool({ name: "email-finder", arguments: FIND_JANE });
    await settle(async () => (await searchCreditsUsed(a.accountId)) === 1);
    await client.callTool({ name: "email-finder", arguments: FIND_JANE });
    // Given time to settle, the repeat still has not spent a second credit.
    await new Promise((r) => setTimeout(r, 100));
    expect(await searchCreditsUsed(a.accountId)).toBe(1);
  });

  it("does not charge a call that answers 422, and says why with the service's error type", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const result = await client.callTool({
      name: "email-finder",
      arguments: { company: "No Such Company Anywhere", full_name: "Jane Cooper" },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta?.[ERROR_META_KEY]).toMatchObject({ type: "unknown_company", code: 422 });
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^Error 422 unknown_company: /);
    await new Promise((r) => setTimeout(r, 100));
    expect(await searchCreditsUsed(a.accountId)).toBe(0);
  });

  it("writes one request-log row per tool call, as /v1 does: type, status, billing and masked parameters", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    await client.listTools();
    await client.callTool({ name: "email-finder", arguments: FIND_JANE });
    await client.callTool({ name: "email-finder", arguments: { domain: "acme-widgets.test" } });
    await settle(async () => (await logRows(a.accountId)).length === 2);
    const [found, refused] = await logRows(a.accountId);
    expect(found).toMatchObject({
      endpoint: "/v1/mcp",
      type: "Email Finder",
      status_code: 200,
      cost: 1,
      source: "api",
      api_key_id: a.keyId,
    });
    expect(found!.uri).toBe("/v1/mcp?tool=email-finder&domain=acme-widgets.test&first_name=J***&last_name=C***");
    expect(refused).toMatchObject({ endpoint: "/v1/mcp", type: "Email Finder", status_code: 400, cost: 0 });
  });

  it("refuses parameters the /v1 endpoint refuses, and names the problem", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const missing = await client.callTool({ name: "email-verifier", arguments: {} });
    expect(missing.isError).toBe(true);
    expect(missing._meta?.[ERROR_META_KEY]).toMatchObject({
      type: "params_invalid",
      code: 400,
      message: "The parameter 'email' is required.",
    });

    const typo = await client.callTool({ name: "email-verifier", arguments: { emial: "jane@acme-widgets.test" } });
    expect(typo._meta?.[ERROR_META_KEY]).toMatchObject({
      type: "params_invalid",
      message: expect.stringContaining("'emial' is not a parameter of this tool"),
    });

    const list = await client.callTool({ name: "email-verifier", arguments: { email: ["a@b.test"] } });
    expect(list._meta?.[ERROR_META_KEY]).toMatchObject({
      type: "params_invalid",
      message: "The parameter 'email' must be text, a number or true/false, not a list.",
    });
  });

  it("takes JSON booleans and numbers for the parameters /v1 reads from the query string", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const result = await client.callTool({
      name: "domain-search",
      arguments: { domain: "acme-widgets.test", limit: 1, enrich_mobile: false },
    });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { data: { emails: unknown[] } }).data.emails).toHaveLength(1);
    const bad = await client.callTool({
      name: "domain-search",
      arguments: { domain: "acme-widgets.test", limit: 1000 },
    });
    expect(bad._meta?.[ERROR_META_KEY]).toMatchObject({
      type: "params_invalid",
      message: "The parameter 'limit' is invalid: must be at most 100.",
    });
  });

  it("refuses an unknown tool name with the protocol's invalid-params error", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const err = await client.callTool({ name: "email-teleporter", arguments: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect(err).toMatchObject({ code: -32602, message: expect.stringContaining("Unknown tool: email-teleporter") });
  });
});

describe("POST /v1/mcp without usable credentials", () => {
  it("answers 401 with a Bearer challenge naming the protected-resource metadata", async () => {
    const res = await rpc("/v1/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="https://api.test/.well-known/oauth-protected-resource", scope="api"',
    );
    expect((await res.json<any>()).errors).toMatchObject({ type: "authentication_failed", code: 401 });
  });

  it("keeps the bearer error of a bad token and adds the metadata", async () => {
    const res = await rpc(
      "/v1/mcp",
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { authorization: "Bearer not-a-token" },
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="account-api", error="invalid_token", .*resource_metadata="https:\/\/api\.test\/\.well-known\/oauth-protected-resource"$/,
    );
    expect((await res.json<any>()).errors.type).toBe("access_token_malformed");
  });

  it("answers a wrong secret with 401 and the challenge", async () => {
    const a = await createAccount();
    const res = await rpc(
      "/v1/mcp",
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { "x-service-key": a.key, "x-service-secret": "wrong-secret-0123456789abcdef" },
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(
      'resource_metadata="https://api.test/.well-known/oauth-protected-resource"',
    );
    expect((await res.json<any>()).errors.type).toBe("invalid_credentials");
  });

  it("publishes RFC 9728 metadata naming this service as the authorization server for the /v1 resource", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/v1/mcp"]) {
      const res = await workerFetch(`${BASE}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(await res.json<any>()).toMatchObject({
        resource: "https://api.test/v1",
        authorization_servers: ["https://api.test"],
        scopes_supported: ["api", "account:read"],
        bearer_methods_supported: ["header"],
      });
    }
  });
});

describe("POST /v1/mcp with malformed JSON-RPC", () => {
  it("answers a body that is not JSON with the parse error -32700", async () => {
    const a = await createAccount();
    const res = await rpc("/v1/mcp", "{not json", a.headers);
    expect(res.status).toBe(400);
    expect(await res.json<any>()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
  });

  it("answers JSON that is not a JSON-RPC message with a protocol error", async () => {
    const a = await createAccount();
    const res = await rpc("/v1/mcp", { hello: "world" }, a.headers);
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.code).toBe(-32700);
  });

  it("answers an unknown method with -32601", async () => {
    const a = await createAccount();
    const res = await rpc("/v1/mcp", { jsonrpc: "2.0", id: 7, method: "tools/teleport", params: {} }, a.headers);
    expect(res.status).toBe(200);
    expect(await res.json<any>()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32601 } });
  });

  it("answers GET (no event stream on a stateless server) with 405", async () => {
    const a = await createAccount();
    const res = await workerFetch(`${BASE}/v1/mcp`, { headers: { ...a.headers, accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("resources and prompts on /v1/mcp", () => {
  it("lists the account's usage and limits, the catalogue and both OpenAPI documents", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      "contact-intelligence://account/usage",
      "contact-intelligence://account/rate-limits",
      "contact-intelligence://catalogue",
      "contact-intelligence://openapi/account",
      "contact-intelligence://openapi/agent",
    ]);
  });

  it("reads the account's credit balances and limits as /v1/rate-limits answers them", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    await client.callTool({ name: "email-finder", arguments: FIND_JANE });
    await settle(async () => (await searchCreditsUsed(a.accountId)) === 1);
    const { contents } = await client.readResource({ uri: "contact-intelligence://account/rate-limits" });
    expect(contents[0]).toMatchObject({
      uri: "contact-intelligence://account/rate-limits",
      mimeType: "application/json",
    });
    const limits = JSON.parse((contents[0] as { text: string }).text);
    expect(limits.credits.search.used).toBe(1);
    expect(limits.data).toBeTypeOf("object");
  });

  it("reads usage, the catalogue with credit costs and the OpenAPI document", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const usage = JSON.parse(
      ((await client.readResource({ uri: "contact-intelligence://account/usage" })).contents[0] as { text: string })
        .text,
    );
    expect(usage.total).toBeTypeOf("object");
    const catalogue = JSON.parse(
      ((await client.readResource({ uri: "contact-intelligence://catalogue" })).contents[0] as { text: string }).text,
    );
    expect(catalogue.tools.find((t: { tool: string }) => t.tool === "email-finder")).toMatchObject({
      rest: { account_api: "GET /v1/email-finder", agent_surface: "GET /email-finder" },
      credits: { balance: "search", per_found_answer: 1 },
      agent_price_usd: "0.03",
    });
    const openapi = JSON.parse(
      ((await client.readResource({ uri: "contact-intelligence://openapi/account" })).contents[0] as { text: string })
        .text,
    );
    expect(openapi.openapi).toBe("3.1.0");
    expect(openapi.paths["/email-finder"]).toBeDefined();
  });

  it("refuses an unknown resource with -32002", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    await expect(client.readResource({ uri: "contact-intelligence://nothing" })).rejects.toMatchObject({
      code: -32002,
    });
  });

  it("offers three workflows that name only the tools this endpoint serves", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["find-decision-makers", "enrich-leads", "check-email-setup"]);
    const { messages } = await client.getPrompt({
      name: "check-email-setup",
      arguments: { domain: "acme-widgets.test" },
    });
    const text = (messages[0]!.content as { text: string }).text;
    expect(text).toContain('Call technology with domain="acme-widgets.test"');
    expect(text).toContain('email-verifier with email="postmaster@acme-widgets.test"');
    await expect(client.getPrompt({ name: "check-email-setup", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("domain"),
    });
  });
});
