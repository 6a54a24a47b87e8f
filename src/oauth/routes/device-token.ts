import type { Context } from "hono";
import { forwardToTokenEndpoint, OAUTH_PATHS } from "../../auth/oauth-config.js";
import { recordIssuedToken } from "../../auth/token-records.js";
import type { AppBindings } from "../../env.js";
import { admitPoll, findByDeviceCode, takeDeviceCode } from "../device-store.js";
import { oauthError } from "../oauth-errors.js";

/** client_id from the form, or from HTTP Basic client authentication. */
export function clientIdOf(c: Context<AppBindings>, form: FormData): string | null {
  const fromForm = form.get("client_id");
  if (typeof fromForm === "string" && fromForm) return fromForm;
  const basic = /^Basic\s+(.+)$/i.exec(c.req.header("authorization") ?? "");
  if (!basic) return null;
  try {
    return decodeURIComponent(atob(basic[1] ?? "").split(":")[0] ?? "") || null;
  } catch {
    return null;
  }
}

/**
 * Token polling for the device flow (RFC 8628 §3.4, §3.5). Once the person approves, the row holds
 * an authorization code the library issued for this device; the winning poll redeems it at the
 * library's token endpoint (with the PKCE verifier and the device's own client authentication), so
 * device tokens are ordinary library tokens: same refresh rotation, revocation and validation.
 */
export async function pollDeviceToken(c: Context<AppBindings>, form: FormData): Promise<Response> {
  const deviceCode = form.get("device_code");
  if (typeof deviceCode !== "string" || !deviceCode)
    return oauthError("invalid_request", "The device_code parameter is required.");
  const clientId = clientIdOf(c, form);
  if (!clientId) return oauthError("invalid_client", "client_id is required.", 401);

  const row = await findByDeviceCode(c.env.DB, deviceCode);
  if (!row || row.clientId !== clientId)
    return oauthError("invalid_grant", "The device_code is not known for this client.");
  const now = Date.now();
  if (row.expiresAt <= now)
    return oauthError("expired_token", "The device_code has expired. Start the device flow again.");

  if (row.status === "pending") {
    const poll = await admitPoll(c.env.DB, row.id, now);
    if (!poll.admitted)
      return oauthError(
        "slow_down",
        `Polling too fast. Wait at least ${poll.intervalSeconds} seconds between requests.`,
        400,
        { "Retry-After": String(poll.intervalSeconds) },
      );
    return oauthError("authorization_pending", "The person has not answered yet.");
  }

  const taken = await takeDeviceCode(c.env.DB, row.id);
  if (!taken) return oauthError("invalid_grant", "The device_code was already used.");
  if (taken.status === "denied") return oauthError("access_denied", "The person denied the request.");

  const { authorizationCode, codeVerifier, redirectUri } = taken;
  // Approving a device code stores all three (approveDeviceCode).
  if (authorizationCode === null || codeVerifier === null || redirectUri === null) {
    throw new Error("an approved device code lacks its authorization code, verifier or redirect URI");
  }
  const body = new URLSearchParams({
    grant_type: "authorization_code",
    code: authorizationCode,
    code_verifier: codeVerifier,
    redirect_uri: redirectUri,
    client_id: clientId,
  });
  const secret = form.get("client_secret");
  if (typeof secret === "string" && secret) body.set("client_secret", secret);
  const headers = new Headers({ "Content-Type": "application/x-www-form-urlencoded" });
  const auth = c.req.header("authorization");
  if (auth) headers.set("Authorization", auth);
  const res = await forwardToTokenEndpoint(
    c,
    new Request(new URL(OAUTH_PATHS.token, c.req.url), { method: "POST", headers, body }),
  );
  await recordIssuedToken(c.env, res);
  return res;
}
