import { Hono } from "hono";
import type { AppBindings } from "../env.js";
import { toErrorResponse } from "../http/errors.js";
import { operatorOnly } from "./operator-only.js";
import { registerImportRoute } from "./import.js";
import { registerCreditPackRoute } from "./credit-packs.js";
import { registerClaimRoutes } from "./claims.js";

/** /operator: routes for whoever runs the service (imports, removal requests), behind X-Operator-Secret. */
export function createOperatorApp() {
  const app = new Hono<AppBindings>();
  app.use("*", operatorOnly());
  registerImportRoute(app);
  registerCreditPackRoute(app);
  registerClaimRoutes(app);
  app.onError((err, c) => toErrorResponse(err, c));
  return app;
}
