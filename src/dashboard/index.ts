import { Hono, type MiddlewareHandler } from "hono";
import type { AppBindings } from "../env.js";
import { APP } from "./config.js";
import { type DashEnv, securityHeaders, signedIn } from "./http.js";
import { registerAttributeAndFlagPages } from "./routes/attributes-flags.js";
import { registerAuthPages } from "./routes/auth.js";
import { registerBulkPages } from "./routes/bulk.js";
import { registerKeyPages } from "./routes/keys.js";
import { registerLeadPages } from "./routes/leads.js";
import { registerLogPages } from "./routes/logs.js";
import { registerOverviewPages } from "./routes/overview.js";
import { registerPlanPages } from "./routes/plans.js";
import { registerSettingsPages } from "./routes/settings.js";
import { registerTeamJoinPages, registerTeamPages } from "./routes/team.js";
import { registerTryPages } from "./routes/try-it.js";
import { registerWebhookPages } from "./routes/webhooks.js";
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
  registerAuthPages(app);
  registerTeamJoinPages(app);

  // Everything below acts for a signed-in account.
  app.use(APP, signedIn(), withV1(appFetch));
  app.use(`${APP}/*`, signedIn(), withV1(appFetch));
  registerOverviewPages(app);
  registerKeyPages(app);
  registerTryPages(app);
  registerBulkPages(app);
  registerLogPages(app);
  registerLeadPages(app);
  registerWebhookPages(app);
  registerAttributeAndFlagPages(app);
  registerTeamPages(app);
  registerPlanPages(app);
  registerSettingsPages(app);
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
