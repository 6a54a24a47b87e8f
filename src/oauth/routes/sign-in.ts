import { sql } from "drizzle-orm";
import type { Hono } from "hono";
import { assertAccountUsable } from "../../auth/authenticate.js";
import { OAUTH_PATHS } from "../../auth/oauth-config.js";
import { db } from "../../db/client.js";
import { accounts } from "../../db/schema.js";
import type { AppBindings } from "../../env.js";
import { ApiError } from "../../http/errors.js";
import { fixedLimit } from "../../limits/middleware.js";
import { hashPassword, verifyPassword } from "../../platform/crypto.js";
import { isolateValue } from "../../platform/isolate-state.js";
import { renderPage } from "../pages/layout.js";
import { signInBody } from "../pages/sign-in.js";
import { csrfOk, currentSession, endSession, preSessionCsrf, startSession } from "../session.js";

/** Where a sign-in may send the browser back to: only our own authorization and device pages. */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== "string") return OAUTH_PATHS.devicePage;
  const ok =
    value.startsWith(`${OAUTH_PATHS.authorize}?`) ||
    value === OAUTH_PATHS.devicePage ||
    value.startsWith(`${OAUTH_PATHS.devicePage}?`);
  return ok && !value.includes("\\") ? value : OAUTH_PATHS.devicePage;
}

export function signInRedirect(url: URL): string {
  return `${OAUTH_PATHS.signIn}?return_to=${encodeURIComponent(url.pathname + url.search)}`;
}

// Compared against when the email matches no account, so both cases cost one PBKDF2 run.
const dummyHash = isolateValue<Promise<string>>("signInDummyHash");

export function registerSignInRoutes(app: Hono<AppBindings>) {
  app.get(OAUTH_PATHS.signIn, async (c) => {
    const returnTo = safeReturnTo(c.req.query("return_to"));
    return renderPage(c, "Sign in", signInBody({ csrf: preSessionCsrf(c), returnTo }));
  });

  // Password guessing is bounded per client address.
  app.post(OAUTH_PATHS.signIn, fixedLimit({ name: "sign-in", limit: 10, windowMs: 60_000, scope: "ip" }), async (c) => {
    const form = await c.req.parseBody();
    const returnTo = safeReturnTo(form.return_to);
    const email = typeof form.email === "string" ? form.email.trim().toLowerCase().slice(0, 320) : "";
    const password = typeof form.password === "string" ? form.password.slice(0, 1024) : "";
    const again = (error: string, status: 400 | 403) =>
      renderPage(c, "Sign in", signInBody({ csrf: preSessionCsrf(c), returnTo, email, error }), { status });

    if (!(await csrfOk(c, form.csrf, null))) return again("This form expired. Please try again.", 403);
    if (!email || !password) return again("Enter your email and password.", 400);

    const [account] = await db(c.env.DB)
      .select()
      .from(accounts)
      .where(sql`lower(${accounts.email}) = ${email}`)
      .limit(1);
    const unknownHash = dummyHash.get() ?? dummyHash.set(hashPassword("no account has this password"));
    const matches = await verifyPassword(password, account?.passwordHash ?? (await unknownHash));
    if (!account?.passwordHash || !matches) return again("The email or password is wrong.", 400);
    try {
      assertAccountUsable(account, Date.now());
    } catch (err) {
      if (err instanceof ApiError) return again(err.message, 403);
      throw err;
    }
    await startSession(c, account.id);
    return c.redirect(returnTo, 303);
  });

  app.post(OAUTH_PATHS.signOut, async (c) => {
    const form = await c.req.parseBody();
    if (await csrfOk(c, form.csrf, await currentSession(c))) await endSession(c);
    return c.redirect(OAUTH_PATHS.signIn, 303);
  });
}
