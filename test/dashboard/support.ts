import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { localOutbox, type MailMessage } from "../../src/dashboard/mailer.js";

export const ORIGIN = "https://api.test";
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
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
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
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, "sec-fetch-site": "same-origin", ...extraHeaders },
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

  get sessionToken(): string | undefined {
    return this.cookies.get("__Host-ci_app");
  }
}

export const PASSWORD = "a long enough password";

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

/** Signs up a new account through the pages; the browser is then signed in (unconfirmed). */
export async function signUp(browser = new Browser(), email = newEmail()) {
  const csrf = await browser.csrfOf("/app/sign-up");
  const res = await browser.post("/app/sign-up", { csrf, email, password: PASSWORD });
  expect(res.status, await res.clone().text()).toBe(303);
  const row = await env.DB.prepare("SELECT id FROM accounts WHERE email = ?").bind(email).first<{ id: number }>();
  return { browser, email, accountId: row!.id };
}

/** Signs up and opens the confirmation link: a confirmed account, signed in. */
export async function confirmedUser(plan = "pro") {
  const user = await signUp();
  const confirm = await user.browser.get(pathOf(lastMail(user.email).link));
  expect(confirm.status).toBe(303);
  if (plan !== "free") await env.DB.prepare("UPDATE accounts SET plan = ? WHERE id = ?").bind(plan, user.accountId).run();
  return user;
}
