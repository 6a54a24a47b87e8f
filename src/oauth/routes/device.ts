import type { AuthRequest } from "@cloudflare/workers-oauth-provider";
import type { Context, Hono } from "hono";
import { csrfOk, currentSession } from "../../auth/browser-session.js";
import {
  authorizationServer,
  DEFAULT_SCOPES,
  type GrantProps,
  issuerFor,
  OAUTH_PATHS,
  resourceFor,
  SUPPORTED_SCOPES,
} from "../../auth/oauth-config.js";
import type { AppBindings } from "../../env.js";
import { base64url, randomToken } from "../../platform/crypto.js";
import {
  approveDeviceCode,
  createDeviceCode,
  DEVICE_CODE_TTL_SECONDS,
  DEVICE_POLL_INTERVAL_SECONDS,
  denyDeviceCode,
  displayUserCode,
  findPendingByUserCode,
  normaliseUserCode,
} from "../device-store.js";
import { throttleDeviceCode } from "../device-throttle.js";
import { oauthError } from "../oauth-errors.js";
import { messageBody } from "../pages/consent.js";
import { deviceConfirmBody, deviceEntryBody } from "../pages/device.js";
import { renderPage } from "../pages/layout.js";
import { clientIdOf } from "./device-token.js";
import { isAllowedRedirectUri } from "./register.js";
import { signInRedirect, unconfirmedPage } from "./sign-in.js";

type C = Context<AppBindings>;

async function s256(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

const clientAddress = (c: C) => c.req.header("cf-connecting-ip") ?? "unknown";

/** The page for a used-up code budget: 429, Retry-After, and what to do. */
function tooManyCodes(c: C, retryAfterSeconds: number) {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  const wait = retryAfterSeconds < 90 ? `${retryAfterSeconds} seconds` : `${minutes} minutes`;
  return renderPage(
    c,
    "Too many codes",
    messageBody(
      "Too many codes tried",
      `For your security, codes can only be tried a few times a minute. Wait ${wait}, then type the code your device shows again (8 letters, like BCDF-GHJK). If it keeps failing, start again on your device to get a new code.`,
    ),
    { status: 429, headers: new Headers({ "Retry-After": String(retryAfterSeconds) }) },
  );
}

export function registerDeviceRoutes(app: Hono<AppBindings>) {
  /** RFC 8628 §3.1–3.2: the device asks for a device code and a user code. */
  app.post(OAUTH_PATHS.deviceAuthorization, async (c) => {
    const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded")
      return oauthError("invalid_request", "Send application/x-www-form-urlencoded.");
    const form = await c.req.raw.formData();
    const clientId = clientIdOf(c, form);
    if (!clientId) return oauthError("invalid_client", "client_id is required.", 401);
    const url = new URL(c.req.url);
    const client = await authorizationServer(c.env, url).getOAuthApi(c.env).lookupClient(clientId);
    if (!client) return oauthError("invalid_client", "No app is registered with this client_id.", 401);
    const requested = String(form.get("scope") ?? "")
      .split(" ")
      .filter(Boolean);
    const unknown = requested.filter((s) => !(SUPPORTED_SCOPES as string[]).includes(s));
    if (unknown.length > 0)
      return oauthError(
        "invalid_scope",
        `Unknown scope: ${unknown.join(" ")}. Supported: ${SUPPORTED_SCOPES.join(" ")}.`,
      );
    const { deviceCode, userCode } = await createDeviceCode(
      c.env.DB,
      clientId,
      requested.length ? requested : DEFAULT_SCOPES,
    );
    const page = `${issuerFor(c.env, url)}${OAUTH_PATHS.devicePage}`;
    return c.json(
      {
        device_code: deviceCode,
        user_code: displayUserCode(userCode),
        verification_uri: page,
        verification_uri_complete: `${page}?user_code=${displayUserCode(userCode)}`,
        expires_in: DEVICE_CODE_TTL_SECONDS,
        interval: DEVICE_POLL_INTERVAL_SECONDS,
      },
      200,
      { "Cache-Control": "no-store" },
    );
  });

  app.get(OAUTH_PATHS.devicePage, async (c) => {
    const session = await currentSession(c);
    if (!session) return c.redirect(signInRedirect(new URL(c.req.url)), 303);
    if (!session.confirmed) return unconfirmedPage(c);
    const { email } = session;
    const prefill = normaliseUserCode(c.req.query("user_code") ?? "");
    return renderPage(
      c,
      "Connect a device",
      deviceEntryBody({ csrf: session.csrf, userCode: prefill ? displayUserCode(prefill) : "", email }),
    );
  });

  app.post(OAUTH_PATHS.devicePage, async (c) => {
    const form = await c.req.parseBody();
    const session = await currentSession(c);
    if (!session) return c.redirect(signInRedirect(new URL(OAUTH_PATHS.devicePage, c.req.url)), 303);
    if (!session.confirmed) return unconfirmedPage(c);
    const { email } = session;
    const typed = typeof form.user_code === "string" ? form.user_code.slice(0, 32) : "";
    if (!(await csrfOk(c, session, form.csrf))) {
      return renderPage(
        c,
        "Connect a device",
        deviceEntryBody({ csrf: session.csrf, userCode: typed, email, error: "This form expired. Please try again." }),
        { status: 403 },
      );
    }
    const code = normaliseUserCode(typed);
    const wait = await throttleDeviceCode(c.env, {
      ip: clientAddress(c),
      accountId: session.accountId,
      code: code ?? typed.toUpperCase(),
    });
    if (wait !== null) return tooManyCodes(c, wait);
    const row = code ? await findPendingByUserCode(c.env.DB, code) : null;
    if (!code || !row) {
      return renderPage(
        c,
        "Connect a device",
        deviceEntryBody({
          csrf: session.csrf,
          userCode: typed,
          email,
          error: "That code is not valid or has expired. Check your device.",
        }),
        { status: 400 },
      );
    }
    const client = await authorizationServer(c.env, new URL(c.req.url)).getOAuthApi(c.env).lookupClient(row.clientId);
    return renderPage(
      c,
      "Allow device",
      deviceConfirmBody({
        csrf: session.csrf,
        userCode: displayUserCode(code),
        appName: client?.clientName ?? row.clientId,
        scopes: row.scope.split(" "),
        email,
      }),
    );
  });

  app.post(`${OAUTH_PATHS.devicePage}/decision`, async (c) => {
    const form = await c.req.parseBody();
    const session = await currentSession(c);
    if (!session || !(await csrfOk(c, session, form.csrf))) {
      return renderPage(
        c,
        "Expired",
        messageBody("This page expired", "Open the device page and enter the code again."),
        { status: 403 },
      );
    }
    if (!session.confirmed) return unconfirmedPage(c);
    const code = typeof form.user_code === "string" ? normaliseUserCode(form.user_code) : null;
    const wait = await throttleDeviceCode(c.env, {
      ip: clientAddress(c),
      accountId: session.accountId,
      code: code ?? "",
    });
    if (wait !== null) return tooManyCodes(c, wait);
    const row = code ? await findPendingByUserCode(c.env.DB, code) : null;
    if (!row)
      return renderPage(c, "Code expired", messageBody("That code is no longer valid", "Start again on your device."), {
        status: 400,
      });

    if (form.decision !== "approve") {
      await denyDeviceCode(c.env.DB, row.id, session.accountId);
      return renderPage(
        c,
        "Denied",
        messageBody("Request denied", "The device was not given access. You can close this page."),
      );
    }
    const url = new URL(c.req.url);
    const helpers = authorizationServer(c.env, url).getOAuthApi(c.env);
    const client = await helpers.lookupClient(row.clientId);
    const redirectUri = client?.redirectUris.find(isAllowedRedirectUri);
    if (!client || !redirectUri)
      return renderPage(c, "App unavailable", messageBody("This app is no longer registered", "Nothing was granted."), {
        status: 400,
      });

    // The library only issues tokens for authorization codes: mint one for the device, bound to a
    // PKCE verifier that never leaves the server. The device's next poll redeems it.
    const codeVerifier = randomToken(48);
    const issuer = issuerFor(c.env, url);
    const request: AuthRequest = {
      responseType: "code",
      clientId: client.clientId,
      redirectUri,
      scope: row.scope.split(" "),
      state: "",
      codeChallenge: await s256(codeVerifier),
      codeChallengeMethod: "S256",
      resource: resourceFor(issuer),
      issuer,
    };
    const props: GrantProps = { accountId: session.accountId };
    const { redirectTo } = await helpers.completeAuthorization({
      request,
      userId: String(session.accountId),
      metadata: { via: "device_code" },
      scope: request.scope,
      props,
      // Several devices of one person may hold the same app at once.
      revokeExistingGrants: false,
    });
    const authorizationCode = new URL(redirectTo).searchParams.get("code");
    if (!authorizationCode) throw new Error("the OAuth provider's consent redirect carries no code");
    const ok = await approveDeviceCode(c.env.DB, row.id, {
      accountId: session.accountId,
      authorizationCode,
      codeVerifier,
      redirectUri,
    });
    if (!ok)
      return renderPage(c, "Code expired", messageBody("That code is no longer valid", "Start again on your device."), {
        status: 400,
      });
    return renderPage(
      c,
      "Device connected",
      messageBody(
        "Device connected",
        `${client.clientName ?? client.clientId} can now use your account. Return to your device.`,
      ),
    );
  });
}
