import { toErrorResponse } from "../http/errors.js";
import { newApiApp } from "../http/openapi.js";
import { operatorOnly } from "./operator-only.js";
import { registerClaimRoutes } from "./routes/claims.js";
import { registerCreditPackRoute } from "./routes/credit-packs.js";
import { registerImportRoute } from "./routes/import.js";
import { registerReshardRoutes } from "./routes/reshard.js";

/**
 * /operator: routes for whoever runs the service (imports, removal requests), behind
 * X-Operator-Secret. Declared with `createRoute` like /v1 (validated, typed), but left out of the
 * published OpenAPI documents: no client of the service calls them.
 */
export function createOperatorApp() {
  const app = newApiApp();
  app.use("*", operatorOnly());
  registerImportRoute(app);
  registerCreditPackRoute(app);
  registerClaimRoutes(app);
  registerReshardRoutes(app);
  app.onError((err, c) => toErrorResponse(err, c));
  return app;
}
