import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppBindings, Env } from "../env.js";
import { randomToken, sha256Hex, timingSafeEqualText } from "../platform/crypto.js";

/**
 * Browser sessions for the sign-in, consent and device pages. The cookie holds `<account id>.<random
 * id>`; KV holds the session's CSRF token under `session:<account id>:<SHA-256 of the random id>`,
 * so every session of one account can be found (and ended) by its key prefix. `__Host-` keeps the
 * cookies Secure, host-only, Path=/.
 */
const SESSION_COOKIE = "__Host-session";
/** CSRF token for forms shown before anyone is signed in (the sign-in form): double-submit cookie. */
const PRE_SESSION_CSRF_COOKIE = "__Host-csrf";
const SESSION_TTL_SECONDS = 8 * 3600;

export interface Session {
  accountId: number;
  csrf: string;
}

type C = Context<AppBindings>;
const COOKIE_SHAPE = /^([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{43})$/;
const accountPrefix = (accountId: number) => `session:${accountId}:`;

const kvKey = async (accountId: number, secret: string) => `${accountPrefix(accountId)}${await sha256Hex(secret)}`;

/** The KV key of the session a cookie names, or null for a cookie of another shape. */
async function kvKeyOf(cookie: string | undefined): Promise<string | null> {
  const [, accountId, secret] = (cookie ? COOKIE_SHAPE.exec(cookie) : null) ?? [];
  return accountId && secret ? kvKey(Number(accountId), secret) : null;
}

export async function currentSession(c: C): Promise<Session | null> {
  const key = await kvKeyOf(getCookie(c, SESSION_COOKIE));
  return key ? c.env.OAUTH_KV.get<Session>(key, "json") : null;
}

export async function startSession(c: C, accountId: number): Promise<void> {
  const secret = randomToken(32);
  const id = `${accountId}.${secret}`;
  const session: Session = { accountId, csrf: randomToken(24) };
  await c.env.OAUTH_KV.put(await kvKey(accountId, secret), JSON.stringify(session), {
    expirationTtl: SESSION_TTL_SECONDS,
  });
  setCookie(c, SESSION_COOKIE, id, {
    path: "/",
    secure: true,
    httpOnly: true,
    sameSite: "Lax",
    maxAge: SESSION_TTL_SECONDS,
  });
  deleteCookie(c, PRE_SESSION_CSRF_COOKIE, { path: "/", secure: true });
}

export async function endSession(c: C): Promise<void> {
  const key = await kvKeyOf(getCookie(c, SESSION_COOKIE));
  if (key) await c.env.OAUTH_KV.delete(key);
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true });
}

/** Ends every page session of the account but the one this request's cookie names (when given). */
export async function endAccountPageSessions(env: Env, accountId: number, except?: C): Promise<void> {
  const keep = except ? await kvKeyOf(getCookie(except, SESSION_COOKIE)) : null;
  let cursor: string | undefined;
  do {
    const page = await env.OAUTH_KV.list({ prefix: accountPrefix(accountId), ...(cursor ? { cursor } : {}) });
    await Promise.all(page.keys.filter((k) => k.name !== keep).map((k) => env.OAUTH_KV.delete(k.name)));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
}

/** The CSRF token for the sign-in form, set as a cookie the form must echo. */
export function preSessionCsrf(c: C): string {
  const existing = getCookie(c, PRE_SESSION_CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return existing;
  const token = randomToken(24);
  setCookie(c, PRE_SESSION_CSRF_COOKIE, token, {
    path: "/",
    secure: true,
    httpOnly: true,
    sameSite: "Strict",
    maxAge: 3600,
  });
  return token;
}

/**
 * Every form post must come from our own pages: the browser's Origin (when sent) must be ours, and
 * the posted token must match the session's (or, before sign-in, the double-submit cookie).
 */
export async function csrfOk(c: C, posted: unknown, session: Session | null): Promise<boolean> {
  const origin = c.req.header("origin");
  if (origin && origin !== new URL(c.req.url).origin) return false;
  if (c.req.header("sec-fetch-site") === "cross-site") return false;
  if (typeof posted !== "string" || posted.length === 0) return false;
  const expected = session ? session.csrf : getCookie(c, PRE_SESSION_CSRF_COOKIE);
  if (!expected) return false;
  return timingSafeEqualText(posted, expected);
}
