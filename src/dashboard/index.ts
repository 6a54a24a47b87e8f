import { Hono, type MiddlewareHandler } from "hono";
import type { AppBindings } from "../env.js";
import { APP } from "./config.js";
import { type DashEnv, securityHeaders, signedIn } from "./http.js";
import { registerAttributeAndFlagRoutes } from "./routes/attributes-flags.js";
import { registerAuthRoutes } from "./routes/auth.js";
import { registerBulkRoutes } from "./routes/bulk.js";
import { registerKeyRoutes } from "./routes/keys.js";
import { registerLeadRoutes } from "./routes/leads.js";
import { registerLogRoutes } from "./routes/logs.js";
import { registerOverviewRoutes } from "./routes/overview.js";
import { registerPlanRoutes } from "./routes/plans.js";
import { registerSettingsRoutes } from "./routes/settings.js";
import { registerTeamJoinRoutes, registerTeamRoutes } from "./routes/team.js";
import { registerTryRoutes } from "./routes/try-it.js";
import { registerWebhookRoutes } from "./routes/webhooks.js";
import { type AppFetch, V1Client } from "./v1-client.js";

/**
 * The account dashboard under /app: server-rendered pages (hono/jsx) over the /v1 routes. Sign-up,
 * sign-in and password pages are public; every other page needs a session (session.ts) and reads
 * and changes the account only through /v1, sent in-process by V1Client with the session's account.
 * Its stylesheet and script are static files (public/app/assets/), served before the Worker runs.
 */
export function createDashboard(appFetch: AppFetch): Hono<AppBindings> {
  const app = new Hono<DashEnv>();
  app.use(APP, headers);
  app.use(`${APP}/*`, headers);
  registerAuthRoutes(app);
  registerTeamJoinRoutes(app);

  // Everything below acts for a signed-in account.
  app.use(APP, signedIn(), withV1(appFetch));
  app.use(`${APP}/*`, signedIn(), withV1(appFetch));
  registerOverviewRoutes(app);
  registerKeyRoutes(app);
  registerTryRoutes(app);
  registerBulkRoutes(app);
  registerLogRoutes(app);
  registerLeadRoutes(app);
  registerWebhookRoutes(app);
  registerAttributeAndFlagRoutes(app);
  registerTeamRoutes(app);
  registerPlanRoutes(app);
  registerSettingsRoutes(app);
  return app as unknown as Hono<AppBindings>;
}

const headers: MiddlewareHandler<DashEnv> = async (c, next) => {
  securityHeaders(c);
  await next();
};

function withV1(appFetch: AppFetch): MiddlewareHandler<DashEnv> {
  return async (c, next) => {
    c.set("v1", new V1Client(c, appFetch, c.get("session").accountId));
    await next();
  };
}
