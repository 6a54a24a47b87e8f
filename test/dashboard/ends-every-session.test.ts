import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { endAccountSessions } from "../../src/dashboard/session.js";
import type { Env } from "../../src/env.js";
import { bearer, issueTokens, signedIn, tokenRequest } from "../oauth/support.js";
import { call } from "../support/accounts.js";
import { Browser, lastMail, pathOf } from "./support.js";

/** Asks for a reset link and chooses a new password through it, in a browser of its own. */
async function resetPassword(email: string, password = "a brand new password") {
  const asker = new Browser();
  await asker.post("/app/reset", { csrf: await asker.csrfOf("/app/reset"), email });
  const browser = new Browser();
  const html = await (await browser.get(pathOf(lastMail(email).link))).text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)![1]!;
  const saved = await browser.post("/app/reset/new", { csrf: field("csrf"), token: field("token"), password });
  expect(saved.status).toBe(303);
  return browser;
}

describe("a password reset ends every session of the account", () => {
  it("signs every browser out and revokes the account's OAuth grants, access and refresh tokens", async () => {
    const { tokens, client, browser: oauthPages, email } = await issueTokens();
    expect((await call("/v1/me", { headers: bearer(tokens.access_token) })).status).toBe(200);
    expect((await oauthPages.fetch("/device")).status).toBe(200);

    const resetter = await resetPassword(email);

    // The OAuth pages' session opened before the reset no longer signs in.
    const device = await oauthPages.fetch("/device");
    expect(device.status).toBe(303);
    expect(new URL(device.headers.get("location")!, "https://api.test").pathname).toMatch(/sign-in$/);
    // The access token no longer answers, and says why.
    const me = await call("/v1/me", { headers: bearer(tokens.access_token) });
    expect(me.status).toBe(401);
    expect((await me.json<{ errors: { type: string } }>()).errors.type).toBe("access_token_revoked");
    // The refresh token mints nothing.
    const refreshed = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(refreshed.status).toBe(400);
    expect((await refreshed.json<{ error: string }>()).error).toBe("invalid_grant");
    // The browser that chose the new password is the one left signed in.
    expect((await resetter.get("/app")).status).toBe(200);
  });
});

describe("endAccountSessions", () => {
  it("keeps the browser of the request it is given signed in, and no other", async () => {
    const { browser: kept, account } = await signedIn();
    const { browser: other } = await signedIn(account);
    const app = new Hono().post("/change", async (c) => {
      await endAccountSessions(env as Env, account.accountId, { except: c });
      return c.text("ok");
    });
    const changed = await app.request("/change", { method: "POST", headers: { cookie: kept.cookieHeader() } }, env);
    expect(changed.status).toBe(200);
    expect((await kept.fetch("/app")).status).toBe(200);
    expect((await kept.fetch("/device")).status).toBe(200);
    expect((await other.fetch("/app")).status).toBe(303);
    expect((await other.fetch("/device")).status).toBe(303);
  });
});
