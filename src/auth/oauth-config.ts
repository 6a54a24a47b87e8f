import { OAuthAuthorizationServer } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../env.js";
import { boundedMap } from "../platform/isolate-state.js";

/** Paths of the OAuth endpoints. The spec leaves them open; the metadata document advertises them. */
export const OAUTH_PATHS = {
  metadata: "/.well-known/oauth-authorization-server",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  revoke: "/oauth/revoke",
  register: "/v1/oauth/register",
  deviceAuthorization: "/oauth/device_authorization",
  devicePage: "/device",
  /** The one sign-in page (the dashboard's), which sends the browser back to `next`. */
  signIn: "/app/sign-in",
  signOut: "/app/sign-out",
  /** Where the OAuth pages signed in before: redirected to `signIn`. */
  formerSignIn: "/sign-in",
} as const;

/** Where a sign-in may send the browser back to among the OAuth pages: the authorization and device pages only. */
export function safeReturnTo(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const ok =
    value.startsWith(`${OAUTH_PATHS.authorize}?`) ||
    value === OAUTH_PATHS.devicePage ||
    value.startsWith(`${OAUTH_PATHS.devicePage}?`);
  return ok && !value.includes("\\") ? value : null;
}

export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/**
 * What an app may be allowed to do. `api` is everything a key can do (spends credits);
 * `account:read` is read-only account data (profile, usage, logs, rate limits) and spends nothing.
 */
export const SCOPES = {
  api: "Run searches, verifications and enrichments that spend your credits, and manage your API keys, leads and bulk jobs",
  "account:read": "Read your profile, usage, request logs and rate limits",
} as const;
export type Scope = keyof typeof SCOPES;
export const SUPPORTED_SCOPES = Object.keys(SCOPES) as Scope[];
/** Granted when an app asks for no scope at all. */
export const DEFAULT_SCOPES: Scope[] = ["api"];

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 86_400;

/** Props sealed into every grant and access token (encrypted by the library). */
export interface GrantProps {
  accountId: number;
}

const servers = boundedMap<string, OAuthAuthorizationServer<Env>>("oauthServers");

/** The issuer: OAUTH_ISSUER when set (production), else the request's own origin. */
export function issuerFor(env: Pick<Env, "OAUTH_ISSUER">, url: URL): string {
  return (env.OAUTH_ISSUER ?? url.origin).replace(/\/+$/, "");
}

/** The protected resource the tokens are for: the account API. */
export function resourceFor(issuer: string): string {
  return `${issuer}/v1`;
}

/**
 * One library authorization server per issuer (the issuer is fixed at construction; locally and in
 * tests it follows the request's origin). It serves metadata, token, revocation and registration and
 * validates access tokens; the pages and the device flow are ours.
 */
export function authorizationServer(env: Env, url: URL): OAuthAuthorizationServer<Env> {
  const issuer = issuerFor(env, url);
  let server = servers.get(issuer);
  if (!server) {
    const resource = resourceFor(issuer);
    server = new OAuthAuthorizationServer<Env>({
      issuer,
      resources: [resource],
      defaultResource: resource,
      authorizeEndpoint: OAUTH_PATHS.authorize,
      tokenEndpoint: OAUTH_PATHS.token,
      clientRegistrationEndpoint: OAUTH_PATHS.register,
      scopesSupported: SUPPORTED_SCOPES,
      accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
    });
    // A handful of origins at most (the pinned issuer in production); the bound only guards odd Host headers.
    servers.set(issuer, server);
  }
  return server;
}

/** Hono types its execution context narrower than workers-types; the object is the Worker's own. */
export function workerCtx(c: { executionCtx: { waitUntil(p: Promise<unknown>): void } }): ExecutionContext {
  return c.executionCtx as ExecutionContext;
}

/** Hands a token request to the OAuth library's token endpoint (the password-less grants and the device grant both end there). */
export function forwardToTokenEndpoint(
  c: { req: { url: string }; env: Env; executionCtx: { waitUntil(p: Promise<unknown>): void } },
  request: Request,
): Promise<Response> {
  return authorizationServer(c.env, new URL(c.req.url)).fetch(request, c.env, workerCtx(c));
}

/**
 * Revokes every OAuth grant of the account, with its access and refresh tokens (a password reset or
 * change). The library keeps grants and tokens in KV under the user id alone, so the issuer of the
 * server that finds them plays no part.
 */
export async function revokeAccountGrants(env: Env, accountId: number): Promise<void> {
  const api = authorizationServer(env, new URL(env.OAUTH_ISSUER ?? "https://localhost")).getOAuthApi(env);
  const userId = String(accountId);
  let cursor: string | undefined;
  do {
    const page = await api.listUserGrants(userId, cursor ? { cursor } : {});
    await Promise.all(page.items.map((grant) => api.revokeGrant(grant.id, userId)));
    cursor = page.cursor;
  } while (cursor);
}
