import { authenticate } from "./auth.js";
import { hasEndpoint, logRequests } from "./request-log.js";
import { registerKeyRoutes } from "./v1-keys.js";
import { registerCurrentKeyRoutes } from "./v1-keys-current.js";
import { registerLogRoutes } from "./v1-logs.js";
import { registerMeRoute } from "./v1-me.js";
import { registerUsageRoute } from "./v1-usage.js";
import { registerRevealRoute } from "./v1-reveal.js";
import { registerRateLimitsRoute } from "./v1-rate-limits.js";
import { registerLeadRoutes } from "../leads/routes/index.js";
import { registerBulkRoutes } from "../bulk/routes/index.js";
import { fixedLimit, tableLimit } from "../limits/middleware.js";
import { newApiApp, type ApiApp } from "../http/openapi.js";
import { CAPABILITIES } from "../capabilities/index.js";
import { mountCapabilities } from "../capabilities/core/mount-v1.js";
import { toErrorResponse } from "../http/errors.js";
import { OAUTH_PATHS, SCOPES, registerClientRegistrationRoute } from "../oauth/index.js";

/** Everything under /v1: authenticated, logged, declared with zod so the OpenAPI document follows. */
export function createV1App(): ApiApp {
  const v1 = newApiApp();
  v1.openAPIRegistry.registerComponent("securitySchemes", "ServiceKey", { type: "apiKey", in: "header", name: "X-Service-Key" });
  v1.openAPIRegistry.registerComponent("securitySchemes", "ServiceSecret", { type: "apiKey", in: "header", name: "X-Service-Secret" });
  v1.openAPIRegistry.registerComponent("securitySchemes", "OAuth2", {
    type: "oauth2",
    description: "Bearer access tokens from the authorization-code flow with PKCE (S256) or the device flow.",
    flows: { authorizationCode: { authorizationUrl: OAUTH_PATHS.authorize, tokenUrl: OAUTH_PATHS.token, refreshUrl: OAUTH_PATHS.token, scopes: { ...SCOPES } } },
  });

  v1.use("*", logRequests());
  const auth = authenticate();
  // Unknown paths and wrong methods answer 404/405 before any credential check.
  // App registration (RFC 7591) is open: an app registers before anyone can authorize it.
  v1.use("*", (c, next) => (hasEndpoint(c) && c.req.path !== OAUTH_PATHS.register ? auth(c, next) : next()));

  // Limits are middleware, so they must be registered before the routes they guard.
  // /v1/me shows the credit balances: the admission brings them back in its one round trip.
  v1.use("/me", tableLimit("me", { withBalances: true }));
  // "/keys/*" also matches "/keys" itself: one registration each, so a request is counted once.
  v1.use("/keys/*", fixedLimit({ name: "keys:read", limit: 100, windowMs: 60_000, scope: "account", methods: ["GET"] }));
  v1.use("/keys/*", fixedLimit({ name: "keys:write", limit: 100, windowMs: 3_600_000, scope: "account", methods: ["POST", "PATCH", "PUT", "DELETE"] }));
  v1.use("/reveal/search", fixedLimit({ name: "reveal", limit: 5, windowMs: 1_000, scope: "account", methods: ["POST"] }));
  v1.use("/flag", fixedLimit({ name: "flag", limit: 10, windowMs: 60_000, scope: "ip" }));

  registerClientRegistrationRoute(v1);
  registerMeRoute(v1);
  registerRateLimitsRoute(v1);
  registerUsageRoute(v1);
  registerLogRoutes(v1);
  registerKeyRoutes(v1);
  registerCurrentKeyRoutes(v1);
  registerRevealRoute(v1);
  registerLeadRoutes(v1);
  registerBulkRoutes(v1);
  mountCapabilities(v1, CAPABILITIES);

  v1.onError((err, c) => toErrorResponse(err, c));
  return v1;
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
