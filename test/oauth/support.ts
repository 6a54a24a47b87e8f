import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { db } from "../../src/db/client.js";
import { accounts } from "../../src/db/schema.js";
import { base64url } from "../../src/platform/crypto.js";
import { call, createAccount, type TestAccount } from "../support/accounts.js";

export const PASSWORD = "correct horse battery staple";
export const REDIRECT = "https://app.test/callback";

/** A tiny cookie jar: the pages set __Host- cookies the next request must carry. */
export class Browser {
  private cookies = new Map<string, string>();

  constructor(readonly ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("Cookie", this.cookieHeader());
    headers.set("cf-connecting-ip", this.ip);
    headers.set("Accept", "text/html");
    const res = await call(path, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const [name, ...value] = pair!.split("=");
      const expired = attrs.some((a) => /max-age=0/i.test(a.trim()));
      if (expired) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join("="));
    }
    return res;
  }

  post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
    return this.fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://api.test", ...headers },
      body: new URLSearchParams(form),
    });
  }

  has(cookie: string) {
    return this.cookies.has(cookie);
  }

  /** The Cookie header this browser sends. */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

export function field(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no ${name} field in page`);
  return match[1]!;
}

export async function emailOf(accountId: number): Promise<string> {
  const [row] = await db(env.DB).select({ email: accounts.email }).from(accounts).where(eq(accounts.id, accountId));
  return row!.email;
}

/** The browser session cookie every signed-in page shares (src/auth/browser-session.ts). */
export const SESSION_COOKIE = "__Host-ci_app";

/** Signs in on the one sign-in page (/app/sign-in), as the consent and device pages send a browser there. */
export async function signInAt(browser: Browser, email: string, password = PASSWORD, next = "/device") {
  const page = await browser.fetch(`/app/sign-in?next=${encodeURIComponent(next)}`);
  const csrf = field(await page.text(), "csrf");
  return browser.post("/app/sign-in", { csrf, next, email, password }, { "Sec-Fetch-Site": "same-origin" });
}

export async function signedIn(
  account?: TestAccount,
  ip?: string,
): Promise<{ browser: Browser; account: TestAccount; email: string }> {
  const a = account ?? (await createAccount());
  const email = await emailOf(a.accountId);
  const browser = new Browser(ip);
  const res = await signInAt(browser, email);
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/device");
  expect(browser.has(SESSION_COOKIE)).toBe(true);
  return { browser, account: a, email };
}

export async function registerClient(
  meta: Record<string, unknown> = {},
): Promise<{ client_id: string; client_secret?: string }> {
  const res = await call("/v1/oauth/register", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      redirect_uris: [REDIRECT],
      client_name: "Test CRM",
      token_endpoint_auth_method: "none",
      ...meta,
    }),
  });
  expect(res.status).toBe(201);
  return res.json();
}

export async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  return { verifier, challenge };
}

export function authorizeUrl(clientId: string, challenge: string | null, extra: Record<string, string> = {}) {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: "st-1",
    scope: "api",
    ...extra,
  });
  if (challenge !== null) {
    q.set("code_challenge", challenge);
    if (!("code_challenge_method" in extra)) q.set("code_challenge_method", "S256");
  }
  return `/oauth/authorize?${q}`;
}

/** Signed in, consent page, Allow: the authorization code from the redirect. */
export async function authorizationCode(
  browser: Browser,
  clientId: string,
  challenge: string,
  scope = "api",
): Promise<string> {
  const consent = await browser.fetch(authorizeUrl(clientId, challenge, { scope }));
  expect(consent.status).toBe(200);
  const html = await consent.text();
  const res = await browser.post("/oauth/authorize", {
    csrf: field(html, "csrf"),
    handle: field(html, "handle"),
    decision: "approve",
  });
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location")!);
  expect(location.origin + location.pathname).toBe(REDIRECT);
  expect(location.searchParams.get("state")).toBe("st-1");
  return location.searchParams.get("code")!;
}

export function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}) {
  return call("/oauth/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form),
  });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
}

/** The whole authorization-code flow for a fresh public client. */
export async function issueTokens(scope = "api") {
  const { browser, account, email } = await signedIn();
  const client = await registerClient();
  const { verifier, challenge } = await pkce();
  const code = await authorizationCode(browser, client.client_id, challenge, scope);
  const res = await tokenRequest({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    code_verifier: verifier,
  });
  expect(res.status).toBe(200);
  const tokens = (await res.json()) as Tokens;
  return { tokens, client, account, email, browser };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
