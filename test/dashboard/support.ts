import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { localOutbox, type MailMessage } from "../../src/dashboard/mailer.js";
import { IDLE_MS } from "../../src/dashboard/session.js";
import { randomToken, sha256Hex } from "../../src/platform/crypto.js";
import { createAccount } from "../support/accounts.js";

export const ORIGIN = "https://api.test";

// The local mailer prints each message (npm start shows the links); the tests read its outbox instead.
const print = console.log;
console.log = (...args: unknown[]) =>
  typeof args[0] === "string" && args[0].startsWith("[mail]") ? undefined : print(...args);
let counter = 0;
let addresses = 0;

/** A fresh email address (and, for the per-address limits, a fresh client address). */
export const newEmail = () => `dash${++counter}-${crypto.randomUUID().slice(0, 8)}@example.test`;
export const newIp = () => `198.51.${Math.floor(++addresses / 250) % 250}.${(addresses % 250) + 1}`;

/**
 * A browser in the tests: keeps the cookies the dashboard sets, sends them back, and posts forms the
 * way a browser does (same-origin Origin and Sec-Fetch-Site headers, the page's CSRF token).
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(readonly ip = newIp()) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", this.cookieHeader());
    if (!headers.has("cf-connecting-ip")) headers.set("cf-connecting-ip", this.ip);
    const res = await exports.default.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers, redirect: "manual" }));
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (/max-age=0/i.test(cookie) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get(path: string) {
    return this.fetch(path);
  }

  /** Posts a form from our own page (its CSRF token is read from `page`'s HTML unless given). */
  post(path: string, fields: Record<string, string>, extraHeaders: Record<string, string> = {}) {
    return this.fetch(path, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: ORIGIN,
        "sec-fetch-site": "same-origin",
        ...extraHeaders,
      },
      body: new URLSearchParams(fields),
    });
  }

  /** GETs a page and answers its CSRF token (the form's hidden field). */
  async csrfOf(path: string): Promise<string> {
    const html = await (await this.get(path)).text();
    const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    expect(token, `no CSRF token on ${path}`).toBeTruthy();
    return token!;
  }

  /** The Cookie header this browser sends. */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  get sessionToken(): string | undefined {
    return this.cookies.get("__Host-ci_app");
  }
}

/** The password of every test account (test/support/accounts.ts) and of the accounts signed up here. */
export const PASSWORD = "correct horse battery staple";

/** The latest message the local mailer sent to `to`. */
export function lastMail(to: string): MailMessage {
  const mail = [...localOutbox()].reverse().find((m) => m.to === to);
  expect(mail, `no mail to ${to}`).toBeDefined();
  return mail!;
}

/** The path and query of a mailed link. */
export const pathOf = (link: string) => {
  const u = new URL(link);
  return u.pathname + u.search;
};

/** Signs up a new account through the pages, then signs the browser in (unconfirmed: the link is not opened). */
export async function signUp(browser = new Browser(), email = newEmail()) {
  const csrf = await browser.csrfOf("/app/sign-up");
  const res = await browser.post("/app/sign-up", { csrf, email, password: PASSWORD });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await res.text()).toContain("Check your inbox");
  const signIn = await browser.post("/app/sign-in", {
    csrf: await browser.csrfOf("/app/sign-in"),
    email,
    password: PASSWORD,
  });
  expect(signIn.status).toBe(303);
  const row = await env.DB.prepare("SELECT id FROM accounts WHERE email = ?").bind(email).first<{ id: number }>();
  return { browser, email, accountId: row!.id };
}

/**
 * A confirmed account (made as test/support/accounts.ts makes them: one password hash per isolate)
 * and a browser signed in to it, its session written as sign-in writes one. Tests of signing in
 * itself go through the pages; the others need not pay a PBKDF2 run each.
 */
export async function confirmedUser(plan = "pro") {
  const account = await createAccount({ plan });
  await env.DB.prepare("DELETE FROM api_keys WHERE account_id = ?").bind(account.accountId).run();
  const { email } = (await env.DB.prepare("SELECT email FROM accounts WHERE id = ?")
    .bind(account.accountId)
    .first<{ email: string }>())!;
  const browser = new Browser();
  const token = randomToken(32);
  const now = Date.now();
  await env.DB.prepare(
    "INSERT INTO dashboard_sessions (token_hash, account_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?)",
  )
    .bind(await sha256Hex(token), account.accountId, now, now, now + IDLE_MS)
    .run();
  browser.cookies.set("__Host-ci_app", token);
  return { browser, email, accountId: account.accountId };
}
