import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppBindings } from "../env.js";
import { randomToken, sha256Hex, timingSafeEqualText } from "../platform/crypto.js";

/**
 * Browser sessions for the sign-in, consent and device pages. The cookie holds a random id; KV holds
 * the account and the session's CSRF token. `__Host-` keeps the cookies Secure, host-only, Path=/.
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
const kvKey = async (id: string) => `session:${await sha256Hex(id)}`;

export async function currentSession(c: C): Promise<Session | null> {
  const id = getCookie(c, SESSION_COOKIE);
  if (!id || id.length > 128) return null;
  return c.env.OAUTH_KV.get<Session>(await kvKey(id), "json");
}

export async function startSession(c: C, accountId: number): Promise<void> {
  const id = randomToken(32);
  const session: Session = { accountId, csrf: randomToken(24) };
  await c.env.OAUTH_KV.put(await kvKey(id), JSON.stringify(session), { expirationTtl: SESSION_TTL_SECONDS });
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
  const id = getCookie(c, SESSION_COOKIE);
  if (id) await c.env.OAUTH_KV.delete(await kvKey(id));
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true });
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
