import type { Context, Hono } from "hono";
import { OAUTH_PATHS, safeReturnTo } from "../../auth/oauth-config.js";
import type { AppBindings } from "../../env.js";
import { messageBody } from "../pages/consent.js";
import { renderPage } from "../pages/layout.js";

/** The sign-in page, then back to this page (the consent or device page of a signed-out browser). */
export function signInRedirect(url: URL): string {
  return `${OAUTH_PATHS.signIn}?next=${encodeURIComponent(url.pathname + url.search)}`;
}

/**
 * An account that has not confirmed its address may sign in (its dashboard says what to do), but no
 * app may act for it: /v1 would refuse every call. Said the same on the consent and device pages.
 */
export function unconfirmedPage(c: Context<AppBindings>) {
  return renderPage(
    c,
    "Confirm your address",
    messageBody(
      "Confirm your email address first",
      "Open the link we mailed when the account was created (your dashboard can send a new one), then start again from the app.",
    ),
    { status: 403 },
  );
}

export function registerSignInRoutes(app: Hono<AppBindings>) {
  // The OAuth pages share the dashboard's sign-in page and session: links and bookmarks to the
  // page they had go there, with the page to come back to.
  app.on(["GET", "POST"], OAUTH_PATHS.formerSignIn, (c) => {
    const back = safeReturnTo(c.req.query("return_to")) ?? OAUTH_PATHS.devicePage;
    return c.redirect(`${OAUTH_PATHS.signIn}?next=${encodeURIComponent(back)}`, 303);
  });
}
