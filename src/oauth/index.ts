import type { Hono } from "hono";
import type { AppBindings } from "../env.js";
import { registerDocsPage } from "./pages/docs.js";
import { STYLESHEET, STYLESHEET_PATH } from "./pages/layout.js";
import { registerAuthorizeRoutes } from "./routes/authorize.js";
import { registerDeviceRoutes } from "./routes/device.js";
import { registerSignInRoutes } from "./routes/sign-in.js";
import { registerTokenRoutes } from "./routes/token.js";

export { OAUTH_PATHS, SCOPES } from "../auth/oauth-config.js";
export { registerClientRegistrationRoute } from "./routes/register.js";

/** OAuth 2.0 endpoints, the sign-in / consent / device pages and /docs, all outside /v1. */
export function registerOAuth(app: Hono<AppBindings>) {
  app.get(STYLESHEET_PATH, (c) =>
    c.body(STYLESHEET, 200, {
      "Content-Type": "text/css; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
      "X-Content-Type-Options": "nosniff",
    }),
  );
  registerSignInRoutes(app);
  registerAuthorizeRoutes(app);
  registerTokenRoutes(app);
  registerDeviceRoutes(app);
  registerDocsPage(app);
}
