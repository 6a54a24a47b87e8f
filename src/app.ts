import { Hono } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";
import { createV1App, v1OpenApiDocument } from "./account/v1.js";
import type { AppBindings } from "./env.js";
import { errorResponse, toErrorResponse } from "./http/errors.js";
import { withRequestId } from "./http/request-id.js";
import { limitBody, REQUEST_DEADLINE_MS, withDeadline } from "./http/request-limits.js";
import { createOperatorApp } from "./operator/app.js";
import { createAgentApp } from "./agent/app.js";
import { registerOAuth } from "./oauth/index.js";
import { homePage } from "./oauth/pages/home.js";
import { isBulkUpload } from "./bulk/upload-path.js";
import { MAX_UPLOAD_BYTES } from "./bulk/types.js";
import { type McpRouteOptions, registerMcp } from "./mcp/routes.js";

export interface AppOptions {
  requestDeadlineMs?: number;
  /** What the MCP endpoints serve (tests pass their own capabilities or payment gate). */
  mcp?: McpRouteOptions;
}

export function createApp(options: AppOptions = {}) {
  const app = new Hono<AppBindings>();
  // First, so every response (errors from the middlewares below included) carries X-Request-Id.
  app.use("*", withRequestId());
  app.use("*", withDeadline(options.requestDeadlineMs ?? REQUEST_DEADLINE_MS));
  // Bulk uploads (multipart POST /v1/bulk/{type}) stream into R2 and have their own, larger cap.
  const apiBodyLimit = limitBody();
  const bulkUploadLimit = limitBody(MAX_UPLOAD_BYTES + 1024 * 1024);
  app.use("*", (c, next) => (isBulkUpload(c.req.raw) ? bulkUploadLimit(c, next) : apiBodyLimit(c, next)));
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        errorResponse(405, "method_not_allowed", `${c.req.method} is not allowed on ${c.req.path}. Allowed: ${methods.join(", ")}.`, {
          Allow: methods.join(", "),
        }),
    }),
  );

  registerOAuth(app);
  // Before /v1: /v1/mcp authenticates its callers itself (an MCP 401 names the OAuth metadata).
  registerMcp(app, options.mcp);
  const v1 = createV1App();
  let v1Doc: unknown;
  app.get("/v1/openapi.json", (c) => c.json((v1Doc ??= v1OpenApiDocument(v1))));
  app.route("/v1", v1);
  app.route("/operator", createOperatorApp());

  app.get("/", (c) =>
    // A browser gets a small page linking the API reference; programs keep the JSON index.
    c.req.header("accept")?.includes("text/html")
      ? homePage(c)
      : c.json({
          name: "Contact Intelligence",
          account_api: "/v1 (X-Service-Key + X-Service-Secret, or OAuth 2.0 Authorization: Bearer)",
          openapi: { account: "/v1/openapi.json", agent: "/openapi.json" },
          docs: "/docs",
          oauth: "/.well-known/oauth-authorization-server",
          agent_api: "paid per request with MPP at the root; see /llms.txt",
          mcp: { account: "/v1/mcp (same credentials as /v1)", agent: "/mcp (paid per call with MPP)" },
        }),
  );
  // The agent surface (paid endpoints, discovery, enrollment) lives at the root.
  app.route("/", createAgentApp());

  app.notFound((c) => errorResponse(404, "unknown_route", `No route matches ${c.req.method} ${c.req.path}.`));
  app.onError((err, c) => toErrorResponse(err, c));
  return app;
}
