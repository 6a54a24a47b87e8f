import { AuthorizationError, type AuthRequest, authorizationErrorRedirect } from "@cloudflare/workers-oauth-provider";
import type { Context, Hono } from "hono";
import { csrfOk, currentSession } from "../../auth/browser-session.js";
import {
  authorizationServer,
  DEFAULT_SCOPES,
  type GrantProps,
  OAUTH_PATHS,
  SUPPORTED_SCOPES,
} from "../../auth/oauth-config.js";
import type { AppBindings } from "../../env.js";
import { consentBody, messageBody } from "../pages/consent.js";
import { renderPage } from "../pages/layout.js";
import { signInRedirect, unconfirmedPage } from "./sign-in.js";

type C = Context<AppBindings>;

/** An authorization error: back to the app when its redirect URI is trusted, else shown here. */
function authorizationFailure(c: C, err: unknown): Promise<Response> | Response {
  if (err instanceof AuthorizationError) {
    if (err.redirectTo) return c.redirect(err.redirectTo, 302);
    return renderPage(c, "Authorization failed", messageBody("This app's request is not valid", err.description), {
      status: 400,
    });
  }
  if (err instanceof Error) {
    // parseAuthRequest throws plain errors for unknown clients and unregistered redirect URIs: never redirect then.
    return renderPage(c, "Authorization failed", messageBody("This app's request is not valid", err.message), {
      status: 400,
    });
  }
  throw err;
}

export function registerAuthorizeRoutes(app: Hono<AppBindings>) {
  app.get(OAUTH_PATHS.authorize, async (c) => {
    const url = new URL(c.req.url);
    const helpers = authorizationServer(c.env, url).getOAuthApi(c.env);
    let request: AuthRequest;
    try {
      request = await helpers.parseAuthRequest(c.req.raw);
    } catch (err) {
      return authorizationFailure(c, err);
    }
    // The library lets confidential clients skip PKCE; this service requires S256 from every client.
    if (!request.codeChallenge || request.codeChallengeMethod !== "S256") {
      return c.redirect(
        authorizationErrorRedirect(
          request,
          "invalid_request",
          "PKCE is required: send code_challenge with code_challenge_method=S256.",
        ),
        302,
      );
    }
    const unknown = request.scope.filter((s) => !(SUPPORTED_SCOPES as string[]).includes(s));
    if (unknown.length > 0) {
      return c.redirect(
        authorizationErrorRedirect(
          request,
          "invalid_scope",
          `Unknown scope: ${unknown.join(" ")}. Supported: ${SUPPORTED_SCOPES.join(" ")}.`,
        ),
        302,
      );
    }
    const session = await currentSession(c);
    if (!session) return c.redirect(signInRedirect(url), 303);
    if (!session.confirmed) return unconfirmedPage(c);

    if (request.scope.length === 0) request = { ...request, scope: DEFAULT_SCOPES };
    const consent = await helpers.describeConsent(request);
    const { handle, headers } = await helpers.beginConsent(request);
    return renderPage(
      c,
      "Allow access",
      consentBody({
        action: OAUTH_PATHS.authorize,
        csrf: session.csrf,
        handle,
        appName: consent.clientName,
        redirectHost: consent.redirectHost,
        redirectIsLoopback: consent.redirectIsLoopback,
        scopes: request.scope,
        email: session.email,
      }),
      // The answer redirects to the app; browsers apply form-action to that redirect too.
      { headers, formTargets: [new URL(request.redirectUri).origin] },
    );
  });

  app.post(OAUTH_PATHS.authorize, async (c) => {
    const form = await c.req.parseBody();
    const session = await currentSession(c);
    if (!session)
      return renderPage(c, "Signed out", messageBody("You are signed out", "Start again from the app."), {
        status: 403,
      });
    if (!session.confirmed) return unconfirmedPage(c);
    if (!(await csrfOk(c, session, form.csrf)) || typeof form.handle !== "string") {
      return renderPage(c, "Expired", messageBody("This page expired", "Start again from the app."), { status: 403 });
    }
    const helpers = authorizationServer(c.env, new URL(c.req.url)).getOAuthApi(c.env);
    try {
      if (form.decision !== "approve") {
        const denied = await helpers.denyConsent(c.req.raw, form.handle);
        for (const [k, v] of denied.headers) c.header(k, v, { append: k.toLowerCase() === "set-cookie" });
        return c.redirect(denied.redirectTo, 302);
      }
      const approved = await helpers.approveConsent(c.req.raw, form.handle);
      const props: GrantProps = { accountId: session.accountId };
      const scope = approved.request.scope.length > 0 ? approved.request.scope : DEFAULT_SCOPES;
      const { redirectTo } = await helpers.completeAuthorization({
        request: approved.request,
        userId: String(session.accountId),
        metadata: { via: "authorization_code" },
        scope,
        props,
      });
      approved.headers.forEach((v, k) => {
        if (k.toLowerCase() !== "location") c.header(k, v, { append: k.toLowerCase() === "set-cookie" });
      });
      return c.redirect(redirectTo, 302);
    } catch (err) {
      return authorizationFailure(c, err);
    }
  });
}
