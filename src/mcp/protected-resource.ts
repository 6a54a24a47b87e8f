import { issuerFor, resourceFor, SUPPORTED_SCOPES } from "../auth/oauth-config.js";
import type { Env } from "../env.js";

/**
 * MCP authorization (protocol 2025-06-18 onward): /v1/mcp is an OAuth 2.0 protected resource. A
 * client without a token gets 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, reads the
 * RFC 9728 document below, finds our authorization server, registers itself (RFC 7591, at
 * /v1/oauth/register), signs the user in with PKCE and comes back with a bearer token.
 */
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

/** RFC 9728 §3.1 also places the document under the resource's path; clients try both. */
export const PROTECTED_RESOURCE_PATHS = [
  PROTECTED_RESOURCE_PATH,
  `${PROTECTED_RESOURCE_PATH}/v1`,
  `${PROTECTED_RESOURCE_PATH}/v1/mcp`,
];

/** The scope a tool call needs (it spends credits); `account:read` tokens cannot call tools. */
export const MCP_SCOPE = "api";

export function resourceMetadataUrl(url: URL): string {
  return `${url.origin}${PROTECTED_RESOURCE_PATH}`;
}

/**
 * The protected resource is the whole account API, `<issuer>/v1`, not `/v1/mcp`: the authorization
 * server issues tokens for exactly that resource, and the MCP SDK client accepts a resource that
 * covers the MCP URL by origin and path prefix. Advertising `/v1/mcp` would make the client ask for
 * a resource the authorization server refuses (`invalid_target`).
 */
export function protectedResourceMetadata(env: Pick<Env, "OAUTH_ISSUER">, url: URL) {
  const issuer = issuerFor(env, url);
  return {
    resource: resourceFor(issuer),
    authorization_servers: [issuer],
    scopes_supported: SUPPORTED_SCOPES,
    bearer_methods_supported: ["header"],
    resource_name: "Contact Intelligence account API (REST under /v1, MCP at /v1/mcp)",
    resource_documentation: `${url.origin}/docs`,
  };
}

/** The challenge of a 401 (and of a 403 for a missing scope) on /v1/mcp. */
export function bearerChallenge(url: URL, extra = ""): string {
  return `Bearer resource_metadata="${resourceMetadataUrl(url)}", scope="${MCP_SCOPE}"${extra}`;
}
