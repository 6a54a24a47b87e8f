import type { Hono } from "hono";
import { assertAccountUsable } from "../../auth/authenticate.js";
import { OAUTH_PATHS } from "../../auth/oauth-config.js";
import { normaliseEmail, signInWithPassword, WRONG_PASSWORD } from "../../auth/password-sign-in.js";
import type { AppBindings } from "../../env.js";
import { ApiError } from "../../http/errors.js";
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

/** Every refusal, wrong password or unconfirmed account alike, says the same. */
const REFUSED = `${WRONG_PASSWORD} A new account must first confirm its address: open the link we mailed it.`;

export function registerSignInRoutes(app: Hono<AppBindings>) {
  app.get(OAUTH_PATHS.signIn, async (c) => {
    const returnTo = safeReturnTo(c.req.query("return_to"));
    return renderPage(c, "Sign in", signInBody({ csrf: preSessionCsrf(c), returnTo }));
  });

  app.post(OAUTH_PATHS.signIn, async (c) => {
    const form = await c.req.parseBody();
    const returnTo = safeReturnTo(form.return_to);
    const email = typeof form.email === "string" ? normaliseEmail(form.email).slice(0, 320) : "";
    const password = typeof form.password === "string" ? form.password.slice(0, 1024) : "";
    const again = (error: string, status: 400 | 403 | 429) =>
      renderPage(c, "Sign in", signInBody({ csrf: preSessionCsrf(c), returnTo, email, error }), { status });

    if (!(await csrfOk(c, form.csrf, null))) return again("This form expired. Please try again.", 403);
    if (!email || !password) return again("Enter your email and password.", 400);
    const ip = c.req.header("cf-connecting-ip") ?? "unknown";
    // Apps act through /v1, which an unconfirmed account cannot use: it is refused like a wrong password.
    const attempt = await signInWithPassword(c.env, { ip, email, password, allowUnconfirmed: false });
    if (attempt.outcome === "throttled") {
      c.header("Retry-After", String(attempt.retryAfter));
      return again(`Too many attempts. Try again in ${attempt.retryAfter} seconds.`, 429);
    }
    if (attempt.outcome === "refused") return again(REFUSED, 400);
    try {
      assertAccountUsable(attempt.account, Date.now());
    } catch (err) {
      if (err instanceof ApiError) return again(err.message, 403);
      throw err;
    }
    await startSession(c, attempt.account.id);
    return c.redirect(returnTo, 303);
  });

  app.post(OAUTH_PATHS.signOut, async (c) => {
    const form = await c.req.parseBody();
    if (await csrfOk(c, form.csrf, await currentSession(c))) await endSession(c);
    return c.redirect(OAUTH_PATHS.signIn, 303);
  });
}
