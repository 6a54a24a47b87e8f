import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../../src/db/client.js";
import { requestLogs } from "../../src/db/schema.js";
import { call, json } from "../support/accounts.js";
import { eventually } from "../support/settle.js";
import {
  authorizationCode,
  authorizeUrl,
  bearer,
  issueTokens,
  pkce,
  REDIRECT,
  registerClient,
  signedIn,
  type Tokens,
  tokenRequest,
} from "./support.js";

afterEach(() => vi.useRealTimers());

describe("authorization code flow with PKCE", () => {
  it("issues tokens that act for the account on /v1 and logs the OAuth client", async () => {
    const { tokens, client, account } = await issueTokens();
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "api" });
    expect(tokens.refresh_token).toBeTruthy();
    const me = await call("/v1/me", { headers: bearer(tokens.access_token) });
    expect(me.status).toBe(200);
    expect((await json(me)).data.user_id).toBe(account.accountId);
    await eventually(async () => {
      const rows = await db(env.DB).select().from(requestLogs).where(eq(requestLogs.accountId, account.accountId));
      expect(rows.map((r) => r.oauthClientId)).toContain(client.client_id);
    });
  });

  it("refuses the plain PKCE method with an error redirect", async () => {
    const { browser } = await signedIn();
    const client = await registerClient();
    const res = await browser.fetch(authorizeUrl(client.client_id, "x".repeat(43), { code_challenge_method: "plain" }));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("code")).toBeNull();
  });

  it("requires PKCE even from a confidential client", async () => {
    const { browser } = await signedIn();
    const client = await registerClient({ token_endpoint_auth_method: "client_secret_basic" });
    expect(client.client_secret).toBeTruthy();
    const res = await browser.fetch(authorizeUrl(client.client_id, null));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toContain("S256");
  });

  it("renders an error page, never a redirect, for an unregistered redirect URI", async () => {
    const { browser } = await signedIn();
    const client = await registerClient();
    const { challenge } = await pkce();
    const res = await browser.fetch(
      authorizeUrl(client.client_id, challenge, { redirect_uri: "https://evil.test/cb" }),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
  });

  it("sends a signed-out browser to the sign-in page and back", async () => {
    const client = await registerClient();
    const { challenge } = await pkce();
    const { Browser } = await import("./support.js");
    const browser = new Browser();
    const res = await browser.fetch(authorizeUrl(client.client_id, challenge));
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get("location")!, "https://api.test");
    expect(to.pathname).toBe("/app/sign-in");
    expect(to.searchParams.get("next")).toMatch(/^\/oauth\/authorize\?/);
  });

  it("refuses a wrong verifier and a replayed code", async () => {
    const { browser } = await signedIn();
    const client = await registerClient();
    const { verifier, challenge } = await pkce();
    const code = await authorizationCode(browser, client.client_id, challenge);
    const wrong = await tokenRequest({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: "w".repeat(43),
    });
    expect(wrong.status).toBe(400);
    expect((await wrong.json<{ error: string }>()).error).toBe("invalid_grant");

    const code2 = await authorizationCode(browser, client.client_id, challenge);
    const first = await tokenRequest({
      grant_type: "authorization_code",
      code: code2,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: verifier,
    });
    expect(first.status).toBe(200);
    const replay = await tokenRequest({
      grant_type: "authorization_code",
      code: code2,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: verifier,
    });
    expect(replay.status).toBe(400);
    expect((await replay.json<{ error: string }>()).error).toBe("invalid_grant");
  });

  it("redirects with access_denied when the person denies", async () => {
    const { browser } = await signedIn();
    const client = await registerClient();
    const { challenge } = await pkce();
    const consent = await browser.fetch(authorizeUrl(client.client_id, challenge));
    const html = await consent.text();
    expect(html).toContain("Test CRM");
    const { field } = await import("./support.js");
    const res = await browser.post("/oauth/authorize", {
      csrf: field(html, "csrf"),
      handle: field(html, "handle"),
      decision: "deny",
    });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("st-1");
  });

  it("refuses a consent post without the session's CSRF token", async () => {
    const { browser } = await signedIn();
    const client = await registerClient();
    const { challenge } = await pkce();
    const html = await (await browser.fetch(authorizeUrl(client.client_id, challenge))).text();
    const { field } = await import("./support.js");
    const res = await browser.post("/oauth/authorize", {
      csrf: "forged-token",
      handle: field(html, "handle"),
      decision: "approve",
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("location")).toBeNull();
  });
});

describe("refresh tokens", () => {
  it("rotate: the new refresh token works and the old one is dead", async () => {
    const { tokens, client } = await issueTokens();
    const refresh = (token: string) =>
      tokenRequest({ grant_type: "refresh_token", refresh_token: token, client_id: client.client_id });
    const first = await refresh(tokens.refresh_token);
    expect(first.status).toBe(200);
    const rotated = (await first.json()) as Tokens;
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await call("/v1/me", { headers: bearer(rotated.access_token) })).status).toBe(200);

    const old = await refresh(tokens.refresh_token);
    expect(old.status).toBe(400);
    expect((await old.json<{ error: string }>()).error).toBe("invalid_grant");
    expect((await refresh(rotated.refresh_token)).status).toBe(200);
  });
});

describe("bearer tokens on /v1", () => {
  async function refusal(res: Response) {
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
    return (await json(res)).errors.type as string;
  }

  it("answers 401 access_token_malformed for a token of the wrong shape", async () => {
    expect(await refusal(await call("/v1/me", { headers: bearer("not a token") }))).toBe("access_token_malformed");
  });

  it("answers 401 access_token_invalid for a well-formed token never issued", async () => {
    expect(await refusal(await call("/v1/me", { headers: bearer(`1:abcdefgh:${"z".repeat(32)}`) }))).toBe(
      "access_token_invalid",
    );
  });

  it("answers 401 access_token_expired once the token has expired", async () => {
    const { tokens } = await issueTokens();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 3601_000);
    expect(await refusal(await call("/v1/me", { headers: bearer(tokens.access_token) }))).toBe("access_token_expired");
  });

  it("answers 401 access_token_revoked after RFC 7009 revocation", async () => {
    const { tokens, client } = await issueTokens();
    const res = await call("/oauth/revoke", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: tokens.access_token,
        token_type_hint: "access_token",
        client_id: client.client_id,
      }),
    });
    expect(res.status).toBe(200);
    expect(await refusal(await call("/v1/me", { headers: bearer(tokens.access_token) }))).toBe("access_token_revoked");
  });

  it("revoking the refresh token ends the grant: refresh refused, access token revoked", async () => {
    const { tokens, client } = await issueTokens();
    const res = await call("/oauth/revoke", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: tokens.refresh_token,
        token_type_hint: "refresh_token",
        client_id: client.client_id,
      }),
    });
    expect(res.status).toBe(200);
    const refresh = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect((await refresh.json<{ error: string }>()).error).toBe("invalid_grant");
    expect(await refusal(await call("/v1/me", { headers: bearer(tokens.access_token) }))).toBe("access_token_revoked");
  });

  it("shares the account's rate-limit counters with its API keys", async () => {
    const { tokens, account } = await issueTokens();
    const left = (res: Response) => Number(res.headers.get("x-daily-request-left"));
    const viaKey = await call("/v1/me", { headers: account.headers });
    const viaToken = await call("/v1/me", { headers: bearer(tokens.access_token) });
    const viaKeyAgain = await call("/v1/me", { headers: account.headers });
    expect(viaToken.status).toBe(200);
    expect(left(viaToken)).toBe(left(viaKey) - 1);
    expect(left(viaKeyAgain)).toBe(left(viaKey) - 2);
  });

  it("limits an account:read token to read-only account routes", async () => {
    const { tokens } = await issueTokens("account:read");
    expect((await call("/v1/me", { headers: bearer(tokens.access_token) })).status).toBe(200);
    const keys = await call("/v1/keys", { headers: bearer(tokens.access_token) });
    expect(keys.status).toBe(403);
    expect((await json(keys)).errors.type).toBe("insufficient_scope");
    expect(keys.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });
});
