import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { sha256Hex } from "../../src/platform/crypto.js";
import { addKey, call } from "../support/accounts.js";
import { Browser, lastMail, newEmail, PASSWORD, pathOf, signUp } from "./support.js";

describe("signing up", () => {
  it("creates an unconfirmed free account and mails a confirmation link; the browser may then sign in", async () => {
    const { browser, email, accountId } = await signUp();
    const account = await env.DB.prepare("SELECT confirmed, plan, password_hash FROM accounts WHERE id = ?")
      .bind(accountId)
      .first<{ confirmed: number; plan: string; password_hash: string }>();
    expect(account).toMatchObject({ confirmed: 0, plan: "free" });
    expect(account!.password_hash).toMatch(/^pbkdf2-sha256\$100000\$/);
    expect(account!.password_hash).not.toContain(PASSWORD);
    expect(browser.sessionToken).toBeDefined();
    const mail = lastMail(email);
    expect(mail.subject).toBe("Confirm your email address");
    expect(mail.link).toMatch(/^https:\/\/api\.test\/app\/confirm\?token=[A-Za-z0-9_-]{43}$/);
    expect(mail.text).toContain(mail.link);
    // Only the token's digest is stored.
    const token = new URL(mail.link).searchParams.get("token")!;
    const stored = await env.DB.prepare("SELECT token_hash FROM account_tokens WHERE account_id = ?")
      .bind(accountId)
      .all<{ token_hash: string }>();
    expect(stored.results).toEqual([{ token_hash: await sha256Hex(token) }]);
  });

  it("answers an unconfirmed account 401 account_unconfirmed on /v1 until the link is opened, then 200", async () => {
    const { browser, email, accountId } = await signUp();
    const key = await addKey(accountId);
    const before = await call("/v1/me", { headers: key.headers });
    expect(before.status).toBe(401);
    expect((await before.json<{ errors: { type: string } }>()).errors.type).toBe("account_unconfirmed");
    // The dashboard says it once, in words: an expected state, not an error code.
    const overview = await (await browser.get("/app")).text();
    expect(overview).not.toContain("account_unconfirmed");
    expect(overview).toContain("Confirm your email address</strong>");

    const confirm = await browser.get(pathOf(lastMail(email).link));
    expect(confirm.status).toBe(303);
    expect(confirm.headers.get("location")).toBe("/app?ok=confirmed");
    expect((await call("/v1/me", { headers: key.headers })).status).toBe(200);
    const after = await (await browser.get("/app?ok=confirmed")).text();
    expect(after).toContain("Your email address is confirmed");
    expect(after).not.toContain("account_unconfirmed");
  });

  it("accepts a confirmation link once", async () => {
    const { email } = await signUp();
    const link = pathOf(lastMail(email).link);
    expect((await new Browser().get(link)).headers.get("location")).toBe("/app/sign-in?ok=confirmed");
    const again = await new Browser().get(link);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("expired or was already used");
    expect((await new Browser().get("/app/confirm?token=not-a-token")).status).toBe(400);
  });

  it("sends a new link on request, and only the newest one works", async () => {
    const { browser, email } = await signUp();
    const first = lastMail(email).link;
    const csrf = await browser.csrfOf("/app");
    const resend = await browser.post("/app/confirm/resend", { csrf });
    expect(resend.headers.get("location")).toBe("/app?ok=confirmation-sent");
    const second = lastMail(email).link;
    expect(second).not.toBe(first);
    expect((await new Browser().get(pathOf(first))).status).toBe(400);
    expect((await new Browser().get(pathOf(second))).status).toBe(303);
  });

  it("answers a taken address exactly as a new one, and mails its owner a note instead of a link", async () => {
    const { email, accountId } = await signUp();
    const newcomer = new Browser();
    const fresh = await newcomer.post("/app/sign-up", {
      csrf: await newcomer.csrfOf("/app/sign-up"),
      email: newEmail(),
      password: PASSWORD,
    });
    const browser = new Browser();
    const taken = await browser.post("/app/sign-up", {
      csrf: await browser.csrfOf("/app/sign-up"),
      email: email.toUpperCase(),
      password: "someone else's password",
    });
    // Before: 400 "An account already uses this address".
    expect([fresh.status, taken.status]).toEqual([200, 200]);
    const page = async (r: Response) => (await r.text()).replace(/dash\d+-[0-9a-f]{8}@example\.test/gi, "ADDRESS");
    expect(await page(taken)).toBe(await page(fresh));
    expect(browser.sessionToken).toBeUndefined();
    const note = lastMail(email);
    expect(note.subject).toBe("You already have an account");
    expect(note.text).toContain("https://api.test/app/reset");
    // The account and its password are untouched.
    const signIn = await browser.post("/app/sign-in", {
      csrf: await browser.csrfOf("/app/sign-in"),
      email,
      password: PASSWORD,
    });
    expect(signIn.status).toBe(303);
    expect(accountId).toBeGreaterThan(0);
  });

  it("refuses a malformed address and a weak password, saying why", async () => {
    const browser = new Browser();
    const csrf = await browser.csrfOf("/app/sign-up");
    const malformed = await browser.post("/app/sign-up", { csrf, email: "not-an-address", password: PASSWORD });
    expect(await malformed.text()).toContain("Enter a valid email address.");
    const short = await browser.post("/app/sign-up", { csrf, email: newEmail(), password: "short" });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain("at least 10 characters");
    const common = await browser.post("/app/sign-up", { csrf, email: newEmail(), password: "Password 1234" });
    expect(common.status).toBe(400);
    expect(await common.text()).toContain("among the first ones guessers try");
    const repeated = await browser.post("/app/sign-up", { csrf, email: newEmail(), password: "abababababab" });
    expect(repeated.status).toBe(400);
    const email = newEmail();
    const ownAddress = await browser.post("/app/sign-up", { csrf, email, password: email });
    expect(ownAddress.status).toBe(400);
    expect(await ownAddress.text()).toContain("does not contain your email address");
    expect(browser.sessionToken).toBeUndefined();
  });

  it("in production without mail settings, refuses to create accounts nobody could confirm", async () => {
    const app = createApp();
    const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    const production = { ...env, ENVIRONMENT: "production" };
    const page = await app.fetch(new Request("https://api.test/app/sign-up"), production, ctx);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = page.headers.getSetCookie()[0]!.split(";")[0]!;
    const email = newEmail();
    const res = await app.fetch(
      new Request("https://api.test/app/sign-up", {
        method: "POST",
        headers: { cookie, origin: "https://api.test", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf, email, password: PASSWORD }),
      }),
      production,
      ctx,
    );
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("cannot send email");
    expect(await env.DB.prepare("SELECT id FROM accounts WHERE email = ?").bind(email).first()).toBeNull();
  });
});
