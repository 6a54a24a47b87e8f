import type { Context, Hono, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { JSX } from "hono/jsx/jsx-runtime";
import { safeReturnTo } from "../auth/oauth-config.js";
import type { AppVariables, Env } from "../env.js";
import { APP, PATHS } from "./config.js";
import { csrfOk, currentSession, type Session } from "./session.js";
import type { V1Answer, V1Client } from "./v1-client.js";

export type DashEnv = { Bindings: Env; Variables: AppVariables & { session: Session; v1: V1Client } };
export type DashApp = Hono<DashEnv>;
export type DashCtx = Context<DashEnv>;

/**
 * Every dashboard page: scripts and styles only from our origin (no inline script or style), fetches
 * only to us, forms only to us, never framed, never cached.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export function securityHeaders(c: Context): void {
  c.header("Content-Security-Policy", CSP);
  c.header("X-Frame-Options", "DENY");
  c.header("X-Content-Type-Options", "nosniff");
  // Not no-referrer: with it browsers send `Origin: null` on our own form posts, which the CSRF check refuses.
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
}

export async function render(
  c: Context,
  page: JSX.Element,
  status: 200 | 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 503 = 200,
): Promise<Response> {
  return c.html(await page, status);
}

/**
 * `table[key]` for a key taken from the request (a path segment, `?ok=`): the table's own entries
 * only, so `constructor`, `__proto__` or `toString` find nothing instead of Object.prototype's.
 */
export function entryOf<T>(table: Readonly<Record<string, T>>, key: string | undefined): T | undefined {
  return key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

/**
 * A failed /v1 answer carried across one redirect, for a page that must not stay at the address it
 * was posted to (the bulk upload's carries the CSRF token in its query). Host-only, HttpOnly, one
 * minute; read once.
 */
const FLASH_COOKIE = "__Host-ci_flash";

export function flashError(c: Context, answer: V1Answer): void {
  if (answer.ok) return;
  const { type, message } = answer.error;
  const value = btoa(
    encodeURIComponent(JSON.stringify({ status: answer.status, type, message: message.slice(0, 500) })),
  );
  setCookie(c, FLASH_COOKIE, value, { path: "/", secure: true, httpOnly: true, sameSite: "Strict", maxAge: 60 });
}

export function takeFlashError(c: Context): V1Answer | undefined {
  const value = getCookie(c, FLASH_COOKIE);
  if (!value) return undefined;
  deleteCookie(c, FLASH_COOKIE, { path: "/", secure: true });
  try {
    const { status, type, message } = JSON.parse(decodeURIComponent(atob(value))) as Record<string, unknown>;
    if (typeof status !== "number" || typeof type !== "string" || typeof message !== "string") return undefined;
    return { ok: false, status, body: null, headers: new Headers(), error: { type, message } };
  } catch {
    return undefined;
  }
}

/** The client's address, as /v1's per-address limits read it. */
export const clientIp = (c: Context) => c.req.header("cf-connecting-ip") ?? "unknown";

/** Form fields of a urlencoded or multipart post, as strings (files and repeats dropped). */
export async function formOf(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") out[k] = v;
  return out;
}

const safeMethod = (m: string) => m === "GET" || m === "HEAD";

/**
 * Signed-in pages: the session, or the sign-in page (a GET) / 401 (anything else). Then every
 * request that changes something must pass the CSRF check: its token is read from the form field
 * `csrf`, the query (a streamed upload's form cannot be read first) or the X-CSRF-Token header.
 */
export function signedIn(): MiddlewareHandler<DashEnv> {
  return async (c, next) => {
    const session = await currentSession(c);
    if (!session) {
      if (safeMethod(c.req.method)) {
        const here = new URL(c.req.url);
        return c.redirect(`${PATHS.signIn}?next=${encodeURIComponent(here.pathname + here.search)}`, 303);
      }
      return c.text("Your session ended. Sign in again.", 401);
    }
    if (!safeMethod(c.req.method)) {
      const multipart = (c.req.header("content-type") ?? "").startsWith("multipart/form-data");
      const urlencoded = (c.req.header("content-type") ?? "").startsWith("application/x-www-form-urlencoded");
      const posted = urlencoded ? (await c.req.parseBody()).csrf : multipart ? c.req.query("csrf") : undefined;
      if (!(await csrfOk(c, session, posted ?? c.req.query("csrf"))))
        return c.text("This form expired or came from another site. Reload the page and try again.", 403);
    }
    c.set("session", session);
    await next();
  };
}

/** Where to go after signing in: a dashboard page of ours, or the OAuth consent or device page that sent the browser. */
export function safeNext(value: unknown): string {
  const oauthPage = safeReturnTo(value);
  if (oauthPage) return oauthPage;
  if (typeof value !== "string" || !value.startsWith(`${APP}`) || value.startsWith("//") || value.includes("\\"))
    return PATHS.overview;
  const path = value.replace(/[?#].*$/s, "");
  return path === APP || path.startsWith(`${APP}/`) ? value : PATHS.overview;
}

export const fmt = (n: number | null | undefined) => (n === null || n === undefined ? "–" : n.toLocaleString("en"));

/** An RFC 3339 instant as "2026-11-26 18:45 UTC". */
export const when = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "–");

/** A record id from the path as /v1 expects it (digits; anything else asks for a record that does not exist). */
export const recordId = (s: string | undefined) => (s && /^\d{1,15}$/.test(s) ? s : "0");

/** The status a page answers with when it shows a failed /v1 answer: the same client error, or 502 for a server one. */
export function statusFor(answer: V1Answer): 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 502 {
  const s = answer.status;
  if (s === 401 || s === 403 || s === 404 || s === 409 || s === 413 || s === 422 || s === 429) return s;
  return s >= 500 ? 502 : 400;
}
