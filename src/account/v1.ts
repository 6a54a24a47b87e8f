import { authenticate } from "../auth/authenticate.js";
import { OAUTH_PATHS, SCOPES } from "../auth/oauth-config.js";
import { toErrorResponse } from "../http/errors.js";
import { type ApiApp, newApiApp } from "../http/openapi.js";
import { hasEndpoint, logRequests } from "./request-log.js";

/**
 * /v1 without its routes: the security schemes of its OpenAPI document, the request log and
 * authentication. Its route families (src/app.ts: account, logs, keys, reveal, leads, bulk,
 * capabilities) are built on first use and put in by `assemble`.
 */
export interface V1Frame {
  /** /v1 with these families' routes, in the order given (the order of the complete /v1). */
  assemble(families: readonly ApiApp[]): ApiApp;
  /** The /v1 OpenAPI document of these families (all of them: it lists every route). */
  document(families: readonly ApiApp[]): ReturnType<ApiApp["getOpenAPI31Document"]>;
}

/** Everything under /v1: authenticated, logged, declared with zod so the OpenAPI document follows. */
export function createV1Frame(): V1Frame {
  const log = logRequests();
  const auth = authenticate();
  const assemble = (families: readonly ApiApp[]) => {
    const v1 = newApiApp();
    v1.openAPIRegistry.registerComponent("securitySchemes", "ServiceKey", {
      type: "apiKey",
      in: "header",
      name: "X-Service-Key",
    });
    v1.openAPIRegistry.registerComponent("securitySchemes", "ServiceSecret", {
      type: "apiKey",
      in: "header",
      name: "X-Service-Secret",
    });
    v1.openAPIRegistry.registerComponent("securitySchemes", "OAuth2", {
      type: "oauth2",
      description: "Bearer access tokens from the authorization-code flow with PKCE (S256) or the device flow.",
      flows: {
        authorizationCode: {
          authorizationUrl: OAUTH_PATHS.authorize,
          tokenUrl: OAUTH_PATHS.token,
          refreshUrl: OAUTH_PATHS.token,
          scopes: { ...SCOPES },
        },
      },
    });

    v1.use("*", log);
    // Unknown paths and wrong methods answer 404/405 before any credential check.
    // App registration (RFC 7591) is open: an app registers before anyone can authorize it.
    v1.use("*", (c, next) => (hasEndpoint(c) && c.req.path !== OAUTH_PATHS.register ? auth(c, next) : next()));

    // Route limits (the /me table row; the fixed limits of keys, reveal and flag) are attached to
    // their routes through `middleware`; capability limits are taken by the executor.
    for (const family of families) v1.route("/", family);

    v1.onError((err, c) => toErrorResponse(err, c));
    return v1;
  };
  return { assemble, document: (families) => v1OpenApiDocument(assemble(families)) };
}

export function v1OpenApiDocument(v1: ApiApp) {
  return v1.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Contact Intelligence account API",
      version: "1",
      description: "Find and verify email addresses, find and validate phone numbers, enrich people and companies.",
    },
    servers: [{ url: "/v1" }],
  });
}
