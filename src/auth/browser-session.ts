import { and, eq, gt, lt, ne, or } from "drizzle-orm";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { db } from "../db/client.js";
import { accounts } from "../db/schema.js";
import { dashboardSessions } from "../db/schema-dashboard.js";
import type { Env } from "../env.js";
import { base64url, randomToken, sha256Hex, timingSafeEqualText } from "../platform/crypto.js";
import { revokeAccountGrants } from "./oauth-config.js";

/**
 * Browser sessions, one for every page a person signs in to: the dashboard (/app) and the OAuth
 * consent and device pages, all signed in at /app/sign-in. The cookie holds a random 256-bit token; D1 keeps only its SHA-256 with the
 * account and the expiry. A session ends after IDLE_MS without use, MAX_AGE_MS after sign-in, at
 * sign-out, or when the password is reset. `__Host-` makes the browser keep the cookie Secure,
 * host-only and on Path=/; HttpOnly keeps it from scripts; SameSite=Lax keeps it off cross-site
 * posts. The CSRF token of a session is derived from its token (never stored): every state-changing
 * request must carry it, and come from our origin.
 */
const SESSION_COOKIE = "__Host-ci_app";
/** Double-submit token for the forms shown before sign-in (sign-in, sign-up, password reset). */
const FORM_COOKIE = "__Host-ci_app_form";
export const IDLE_MS = 12 * 3_600_000;
export const MAX_AGE_MS = 7 * 86_400_000;
/** A session's last use is written at most this often (each write moves its idle expiry). */
const TOUCH_EVERY_MS = 10 * 60_000;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface Session {
  accountId: number;
  email: string;
  confirmed: boolean;
  /** Echoed by every form and script request that changes something. */
  csrf: string;
}

/** Any context of the Worker (the dashboard's app has variables of its own); its env is the Worker's. */
// biome-ignore lint/suspicious/noExplicitAny: any app's context; only env, cookies and the request are read
type C = Context<any>;
const envOf = (c: C) => c.env as Env;

const csrfOf = async (token: string) =>
  base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`dashboard-csrf:${token}`))));

export async function startSession(c: C, accountId: number, now = Date.now()): Promise<void> {
  const token = randomToken(32);
  await db(envOf(c).DB)
    .insert(dashboardSessions)
    .values({
      tokenHash: await sha256Hex(token),
      accountId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + IDLE_MS,
      userAgent: c.req.header("user-agent")?.slice(0, 256) ?? null,
    });
  setCookie(c, SESSION_COOKIE, token, {
    path: "/",
    secure: true,
    httpOnly: true,
    sameSite: "Lax",
    maxAge: MAX_AGE_MS / 1000,
  });
  deleteCookie(c, FORM_COOKIE, { path: "/", secure: true });
}

/** The signed-in session of this request, or null (no cookie, unknown, expired, or the account is gone or blocked). */
export async function currentSession(c: C, now = Date.now()): Promise<Session | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token || !TOKEN_SHAPE.test(token)) return null;
  const tokenHash = await sha256Hex(token);
  const [row] = await db(envOf(c).DB)
    .select({
      session: dashboardSessions,
      email: accounts.email,
      confirmed: accounts.confirmed,
      blocked: accounts.blocked,
      kind: accounts.kind,
    })
    .from(dashboardSessions)
    .innerJoin(accounts, eq(accounts.id, dashboardSessions.accountId))
    .where(and(eq(dashboardSessions.tokenHash, tokenHash), gt(dashboardSessions.expiresAt, now)))
    .limit(1);
  if (!row || row.blocked || row.kind !== "user") return null;
  const { session } = row;
  if (now - session.lastSeenAt >= TOUCH_EVERY_MS) {
    const expiresAt = Math.min(now + IDLE_MS, session.createdAt + MAX_AGE_MS);
    c.executionCtx.waitUntil(
      db(envOf(c).DB)
        .update(dashboardSessions)
        .set({ lastSeenAt: now, expiresAt })
        .where(eq(dashboardSessions.tokenHash, tokenHash))
        .run(),
    );
  }
  return { accountId: session.accountId, email: row.email, confirmed: row.confirmed, csrf: await csrfOf(token) };
}

export async function endSession(c: C): Promise<void> {
  const token = getCookie(c, SESSION_COOKIE);
  if (token && TOKEN_SHAPE.test(token))
    await db(envOf(c).DB)
      .delete(dashboardSessions)
      .where(eq(dashboardSessions.tokenHash, await sha256Hex(token)))
      .run();
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true });
}

/**
 * Signs the account out everywhere (a password reset or change): every browser session, and every
 * OAuth grant with its access and refresh tokens. `except` names the request whose browser stays
 * signed in (the one that changed the password).
 */
export async function endAccountSessions(env: Env, accountId: number, options: { except?: C } = {}): Promise<void> {
  const keep = options.except ? getCookie(options.except, SESSION_COOKIE) : undefined;
  const keepHash = keep && TOKEN_SHAPE.test(keep) ? await sha256Hex(keep) : null;
  await db(env.DB)
    .delete(dashboardSessions)
    .where(
      keepHash
        ? and(eq(dashboardSessions.accountId, accountId), ne(dashboardSessions.tokenHash, keepHash))
        : eq(dashboardSessions.accountId, accountId),
    )
    .run();
  await revokeAccountGrants(env, accountId);
}

/** Deletes sessions past their expiry (the hourly cron). */
export async function pruneSessions(d1: D1Database, now: number): Promise<void> {
  await db(d1)
    .delete(dashboardSessions)
    .where(or(lt(dashboardSessions.expiresAt, now), lt(dashboardSessions.createdAt, now - MAX_AGE_MS)))
    .run();
}

/** The token of the forms shown before sign-in, kept in a cookie the form must echo. */
export function formToken(c: C): string {
  const existing = getCookie(c, FORM_COOKIE);
  if (existing && TOKEN_SHAPE.test(existing)) return existing;
  const token = randomToken(32);
  setCookie(c, FORM_COOKIE, token, { path: "/", secure: true, httpOnly: true, sameSite: "Strict", maxAge: 3600 });
  return token;
}

/**
 * A state-changing request must come from our own pages: the browser's Origin (when it sends one)
 * is ours, Sec-Fetch-Site is not cross-site, and the token it carries (form field `csrf` or header
 * X-CSRF-Token) is the session's, or before sign-in the form cookie's. Compared in constant time.
 */
export async function csrfOk(c: C, session: Session | null, posted: unknown): Promise<boolean> {
  const origin = c.req.header("origin");
  if (origin && origin !== new URL(c.req.url).origin) return false;
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return false;
  const given = typeof posted === "string" && posted ? posted : c.req.header("x-csrf-token");
  if (!given) return false;
  const expected = session ? session.csrf : getCookie(c, FORM_COOKIE);
  if (!expected) return false;
  return timingSafeEqualText(given, expected);
}
