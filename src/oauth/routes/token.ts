import type { Context, Hono } from "hono";
import {
  authorizationServer,
  DEVICE_CODE_GRANT,
  forwardToTokenEndpoint,
  OAUTH_PATHS,
  workerCtx,
} from "../../auth/oauth-config.js";
import { recordIssuedToken, recordRevokedToken } from "../../auth/token-records.js";
import type { AppBindings } from "../../env.js";
import { sha256Hex } from "../../platform/crypto.js";
import { oauthError } from "../oauth-errors.js";
import { pollDeviceToken } from "./device-token.js";

type C = Context<AppBindings>;

/** The library's grant record, read only for refresh-token replay detection. */
interface StoredGrant {
  refreshTokenId?: string;
  previousRefreshTokenId?: string;
}

async function readForm(c: C): Promise<FormData | null> {
  const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return null;
  return c.req.raw
    .clone()
    .formData()
    .catch(() => null);
}

/**
 * The library keeps the previous refresh token usable (in case the client lost the answer); this
 * service rotates strictly, so a refresh token works once.
 */
async function isReplayedRefreshToken(c: C, refreshToken: string): Promise<boolean> {
  const [userId, grantId, secret] = refreshToken.split(":");
  if (!userId || !grantId || !secret) return false;
  const grant = await c.env.OAUTH_KV.get<StoredGrant>(`grant:${userId}:${grantId}`, "json");
  if (!grant) return false;
  const id = await sha256Hex(refreshToken);
  return grant.previousRefreshTokenId === id && grant.refreshTokenId !== id;
}

export function registerTokenRoutes(app: Hono<AppBindings>) {
  app.post(OAUTH_PATHS.token, async (c) => {
    const form = await readForm(c);
    const grantType = form?.get("grant_type");
    if (form && grantType === DEVICE_CODE_GRANT) return pollDeviceToken(c, form);
    if (form && grantType === "refresh_token") {
      const refreshToken = form.get("refresh_token");
      if (typeof refreshToken === "string" && (await isReplayedRefreshToken(c, refreshToken))) {
        return oauthError(
          "invalid_grant",
          "This refresh token was already used. Use the newest refresh token, or authorize again.",
        );
      }
    }
    // The library also takes RFC 7009 revocations at its token endpoint (a `token` and no grant_type).
    const revoking = form && !grantType ? form.get("token") : null;
    if (typeof revoking === "string") await recordRevokedToken(c.env, revoking);
    const res = await forwardToTokenEndpoint(c, c.req.raw);
    if (grantType) await recordIssuedToken(c.env, res);
    return res;
  });

  /** RFC 7009 revocation at its own address; the library serves it from the token endpoint. */
  app.post(OAUTH_PATHS.revoke, async (c) => {
    const form = await readForm(c);
    if (!form) return oauthError("invalid_request", "Send application/x-www-form-urlencoded with a token parameter.");
    const token = form.get("token");
    if (typeof token !== "string" || !token) return oauthError("invalid_request", "The token parameter is required.");
    if (form.has("grant_type"))
      return oauthError("invalid_request", "grant_type does not belong in a revocation request.");
    await recordRevokedToken(c.env, token);
    const body = new URLSearchParams();
    form.forEach((value, name) => {
      if (typeof value === "string") body.append(name, value);
    });
    const headers = new Headers(c.req.raw.headers);
    headers.delete("content-length");
    return forwardToTokenEndpoint(
      c,
      new Request(new URL(OAUTH_PATHS.token, c.req.url), { method: "POST", headers, body }),
    );
  });

  app.get(OAUTH_PATHS.metadata, async (c) => {
    const url = new URL(c.req.url);
    const res = await authorizationServer(c.env, url).fetch(c.req.raw, c.env, workerCtx(c));
    if (!res.ok) return res;
    const metadata = (await res.json()) as Record<string, unknown> & {
      issuer: string;
      grant_types_supported?: string[];
    };
    const base = metadata.issuer;
    return c.json(
      {
        ...metadata,
        revocation_endpoint: `${base}${OAUTH_PATHS.revoke}`,
        // The library has no device flow; ours is advertised beside its endpoints (RFC 8628 §4).
        device_authorization_endpoint: `${base}${OAUTH_PATHS.deviceAuthorization}`,
        grant_types_supported: [...(metadata.grant_types_supported ?? []), DEVICE_CODE_GRANT],
        service_documentation: `${base}/docs`,
      },
      200,
      { "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" },
    );
  });
}
