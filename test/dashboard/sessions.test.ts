import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SIGN_IN_LIMITS, throttleSignIn } from "../../src/auth/password-sign-in.js";
import { openSessionCall, SESSION_CALL_HEADER } from "../../src/auth/session-calls.js";
import { sha256Hex } from "../../src/platform/crypto.js";
import { Browser, confirmedUser, newEmail, ORIGIN, PASSWORD, signUp } from "./support.js";

async function signIn(browser: Browser, email: string, password = PASSWORD, next?: string) {
  const csrf = await browser.csrfOf("/app/sign-in");
  return browser.post("/app/sign-in", { csrf, email, password, ...(next ? { next } : {}) });
}

describe("sessions", () => {
  it("signs in with the right password into a random token cookie (HttpOnly, Secure, SameSite, __Host-), storing only its hash", async () => {
    const { email, accountId } = await signUp();
    const browser = new Browser();
    const res = await signIn(browser, email, PASSWORD, "/app/keys");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app/keys");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-ci_app="))!;
    expect(cookie).toMatch(/; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const token = browser.sessionToken!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await env.DB.prepare("SELECT token_hash FROM dashboard_sessions WHERE account_id = ?")
      .bind(accountId)
      .all<{ token_hash: string }>();
    expect(rows.results.map((r) => r.token_hash)).toContain(await sha256Hex(token));
    expect(JSON.stringify(rows.results)).not.toContain(token);
    expect((await browser.get("/app/keys")).status).toBe(200);
  });

  it("refuses a wrong password and an unknown address alike, and sends a stranger to sign in", async () => {
    const { email } = await signUp();
    const wrong = await signIn(new Browser(), email, "not the password at all");
    const unknown = await signIn(new Browser(), newEmail());
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("The email or password is wrong.");
    }
    const stranger = await new Browser().get("/app/bulk?type=finder");
    expect(stranger.status).toBe(303);
    expect(stranger.headers.get("location")).toBe("/app/sign-in?next=%2Fapp%2Fbulk%3Ftype%3Dfinder");
    // Only our own pages are places to go back to.
    const { browser: other } = await signUp();
    await other.post("/app/sign-out", { csrf: await other.csrfOf("/app") });
    expect(
      (await signIn(other, (await signUp()).email, PASSWORD, "https://evil.example/app")).headers.get("location"),
    ).toBe("/app");
  });

  it("is not ended, nor its cookie cleared, by a sign-out form posted from another site", async () => {
    const { browser } = await confirmedUser();
    // A cross-site form post: the browser sends no SameSite=Lax cookie, and says where it comes from.
    const res = await exports.default.fetch(
      new Request("https://api.test/app/sign-out", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: "https://evil.example",
          "sec-fetch-site": "cross-site",
        },
        body: "",
        redirect: "manual",
      }),
    );
    expect(res.status).toBe(303);
    // Before: a Set-Cookie that emptied __Host-ci_app, signing the browser out.
    expect(res.headers.getSetCookie().filter((c) => c.startsWith("__Host-ci_app="))).toEqual([]);
    expect((await browser.get("/app")).status).toBe(200);
  });

  it("ends at sign-out, after its idle time, and when the account is blocked", async () => {
    const { browser, accountId } = await confirmedUser();
    const token = browser.sessionToken!;
    const out = await browser.post("/app/sign-out", { csrf: await browser.csrfOf("/app") });
    expect(out.headers.get("location")).toBe("/app/sign-in?ok=signed-out");
    expect(
      await env.DB.prepare("SELECT 1 FROM dashboard_sessions WHERE token_hash = ?")
        .bind(await sha256Hex(token))
        .first(),
    ).toBeNull();
    const replay = new Browser();
    replay.cookies.set("__Host-ci_app", token);
    expect((await replay.get("/app")).status).toBe(303);

    const idle = await confirmedUser();
    await env.DB.prepare("UPDATE dashboard_sessions SET expires_at = ? WHERE account_id = ?")
      .bind(Date.now() - 1, idle.accountId)
      .run();
    expect((await idle.browser.get("/app")).status).toBe(303);

    const blocked = await confirmedUser();
    await env.DB.prepare("UPDATE accounts SET blocked = 1 WHERE id = ?").bind(blocked.accountId).run();
    expect((await blocked.browser.get("/app")).status).toBe(303);
    expect(accountId).toBeGreaterThan(0);
  });

  it("refuses every state-changing request without the session's token, from another origin or cross-site", async () => {
    const { browser, accountId } = await confirmedUser();
    const csrf = await browser.csrfOf("/app/keys");
    const keys = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM api_keys WHERE account_id = ?")
        .bind(accountId)
        .first<{ n: number }>())!.n;
    const refusals = [
      await browser.post("/app/keys", { name: "no token" }),
      await browser.post("/app/keys", { csrf: `${csrf.slice(0, -2)}xx`, name: "wrong token" }),
      await browser.post("/app/keys", { csrf, name: "other origin" }, { origin: "https://evil.example" }),
      await browser.post("/app/keys", { csrf, name: "cross-site" }, { "sec-fetch-site": "cross-site" }),
      // The upload preview (a script's JSON request) needs the token in X-CSRF-Token.
      await browser.fetch("/app/bulk/columns/finder", {
        method: "POST",
        headers: { "content-type": "application/json", origin: ORIGIN },
        body: JSON.stringify({ text: "domain\nacme.com\n" }),
      }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
    expect(await keys()).toBe(0);
    // Another account's session token is no use either.
    const other = await confirmedUser();
    expect(
      (await browser.post("/app/keys", { csrf: await other.browser.csrfOf("/app/keys"), name: "theirs" })).status,
    ).toBe(403);
    expect((await browser.post("/app/keys", { csrf, name: "mine" })).status).toBe(200);
    expect(await keys()).toBe(1);
    // Before sign-in, the form's token must match the browser's own form cookie.
    const { email } = await signUp();
    const stranger = new Browser();
    const res = await stranger.post("/app/sign-in", {
      csrf: await new Browser().csrfOf("/app/sign-in"),
      email,
      password: PASSWORD,
    });
    expect(res.status).toBe(403);
    expect(stranger.sessionToken).toBeUndefined();
  });

  it("throttles password guessing per address and per account, like the device page's codes", async () => {
    const { email } = await signUp();
    // Every attempt spends the budgets (right or wrong password): spent here without the PBKDF2 runs.
    const browser = new Browser();
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress.limit; i++)
      expect(await throttleSignIn(env, browser.ip, newEmail())).toBeNull();
    const refused = await signIn(browser, email);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(browser.sessionToken).toBeUndefined();

    // One account guessed at from one other address: closed to that address only.
    const guesser = new Browser();
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountFromAddress.limit; i++)
      expect(await throttleSignIn(env, guesser.ip, email)).toBeNull();
    expect((await signIn(guesser, email)).status).toBe(429);
    expect(guesser.sessionToken).toBeUndefined();
    // (Many addresses at one account: test/oauth/password-guessing.test.ts.)
  });

  it("acts for the account only while a dashboard call is under way: a call token from outside does nothing", async () => {
    const { accountId } = await confirmedUser();
    const call = openSessionCall(accountId, true);
    call.close();
    const late = await exports.default.fetch(
      new Request(`${ORIGIN}/v1/me`, { headers: { [SESSION_CALL_HEADER]: call.token } }),
    );
    expect(late.status).toBe(400);
    expect((await late.json<{ errors: { type: string } }>()).errors.type).toBe("missing_credentials");
    const guessed = await exports.default.fetch(
      new Request(`${ORIGIN}/v1/me`, { headers: { [SESSION_CALL_HEADER]: "x".repeat(43) } }),
    );
    expect(guessed.status).toBe(400);
  });
});
