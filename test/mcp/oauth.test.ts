import { env } from "cloudflare:workers";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { describe, expect, it } from "vitest";
import { limiterFor } from "../../src/limits/admission.js";
import { field, issueTokens, REDIRECT, signedIn } from "../oauth/support.js";
import { settle } from "../support/settle.js";
import { connect, workerFetch } from "./support.js";

/**
 * What an MCP client application keeps between the steps of the OAuth flow: the SDK drives it
 * (discovery from the 401, registration, PKCE, the token exchange); the user's browser does the rest.
 */
class RecordingProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: "Test MCP client",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  state = () => "mcp-state-1";
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => {
    this.client = info;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier!;
}

describe("an MCP client signing in to /v1/mcp with OAuth", () => {
  it("discovers the authorization server from the 401, registers itself, gets a token through the user's consent and calls a tool", async () => {
    const provider = new RecordingProvider();
    // 1. No token: the SDK client reads the 401's metadata, registers (DCR) and sends the user to consent.
    const refused = await connect("/v1/mcp", { authProvider: provider }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/\S/);
    const authorize = provider.authorizationUrl!;
    expect(authorize.origin + authorize.pathname).toBe("https://api.test/oauth/authorize");
    // The resource is the account API the tokens are for: it covers /v1/mcp.
    expect(authorize.searchParams.get("resource")).toBe("https://api.test/v1");
    expect(authorize.searchParams.get("scope")).toBe("api");
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");

    // 2. The user signs in and allows the app; the browser comes back to the app with a code.
    const { browser, account } = await signedIn();
    const consent = await browser.fetch(authorize.pathname + authorize.search);
    expect(consent.status).toBe(200);
    const html = await consent.text();
    expect(html).toContain("Test MCP client");
    const approved = await browser.post("/oauth/authorize", {
      csrf: field(html, "csrf"),
      handle: field(html, "handle"),
      decision: "approve",
    });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get("location")!);
    expect(back.searchParams.get("state")).toBe("mcp-state-1");

    // 3. The SDK exchanges the code (PKCE verifier, same resource), then connects with the token.
    const finishing = new StreamableHTTPClientTransport(new URL("https://api.test/v1/mcp"), {
      authProvider: provider,
      fetch: workerFetch,
    });
    await finishing.finishAuth(back.searchParams.get("code")!);
    expect(provider.saved?.access_token).toMatch(/\S/);
    expect(provider.saved?.scope).toBe("api");

    const { client } = await connect("/v1/mcp", { authProvider: provider });
    const result = await client.callTool({
      name: "email-finder",
      arguments: { domain: "acme-widgets.test", first_name: "Jane", last_name: "Cooper" },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ data: { email: "jane.cooper@acme-widgets.test" } });
    // Billed to the account that signed in, like a /v1 call with the same token.
    await settle(async () => (await limiterFor(env, account.accountId).balances("pro")).search.used === 1);
    await settle(async () => {
      const row = await env.DB.prepare(
        "SELECT oauth_client_id, type, cost FROM request_logs WHERE account_id = ? AND endpoint = '/v1/mcp'",
      )
        .bind(account.accountId)
        .first();
      return row?.oauth_client_id === provider.client!.client_id && row.type === "Email Finder" && row.cost === 1;
    });
  });

  it("refuses a token with only the account:read scope with 403 and the scope it needs", async () => {
    const { tokens } = await issueTokens("account:read");
    const res = await workerFetch("https://api.test/v1/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toMatch(
      /error="insufficient_scope".*scope="api".*resource_metadata="https:\/\/api\.test\/\.well-known\/oauth-protected-resource"/,
    );
    expect((await res.json<any>()).errors.type).toBe("insufficient_scope");
  });
});
