import type { ExecutionContext, Hono } from "hono";
import { cors } from "hono/cors";
import { productionGate } from "../agent/app.js";
import type { GateDeps } from "../agent/payment-gate.js";
import type { AnyCapability } from "../capabilities/core/registry.js";
import { CAPABILITIES } from "../capabilities/index.js";
import type { AppBindings, Env } from "../env.js";
import { MCP_PATHS } from "../http/mcp-paths.js";
import type { Ctx } from "../http/openapi.js";
import { authenticateMcpCaller } from "./account-auth.js";
import { accountEndpoint } from "./account-surface.js";
import { agentEndpoint } from "./agent-surface.js";
import { PROTECTED_RESOURCE_PATHS, protectedResourceMetadata } from "./protected-resource.js";

export interface McpRouteOptions {
  /** What is served as tools; production passes nothing (the registry). Tests pass their own list. */
  capabilities?: readonly AnyCapability[];
  /** Payment provider and ledger of /mcp; tests wrap the real ones to inject faults. */
  gate?: Partial<GateDeps>;
}

/** A whole app's fetch (src/app.ts createApp). */
export type AppFetch = (request: Request, env: Env, ctx: ExecutionContext) => Response | Promise<Response>;

/**
 * The MCP SDK, loaded on the first MCP request (then cached by the runtime): it stays out of the
 * Worker's startup and off the /v1 and agent paths. server.ts imports nothing else of the Worker
 * at run time (the endpoints are built here), so the bundler wraps no shared module for it.
 */
const loadServer = () => import("./server.js");

/**
 * The two MCP endpoints (Streamable HTTP, POST only: the server is stateless, so there is no event
 * stream to GET and no session to DELETE; both answer 405) and the RFC 9728 metadata that lets an
 * MCP client find our OAuth server. Registered before /v1 so /v1/mcp does its own authentication.
 * Browser-based MCP clients need CORS on all of them; no cookie is involved. Resources read our own
 * GET endpoints through `appFetch`: the whole app, of which `app` holds only the MCP routes.
 */
export function registerMcp(app: Hono<AppBindings>, options: McpRouteOptions, appFetch: AppFetch) {
  const allowBrowsers = cors({
    origin: "*",
    allowMethods: ["GET", "POST", "OPTIONS"],
    allowHeaders: [
      "content-type",
      "accept",
      "authorization",
      "x-service-key",
      "x-service-secret",
      "mcp-protocol-version",
      "mcp-session-id",
      "last-event-id",
      "x-request-id",
    ],
    exposeHeaders: ["www-authenticate", "mcp-session-id", "mcp-protocol-version", "x-request-id", "retry-after"],
    maxAge: 86_400,
  });
  const serveOptions = (c: Pick<Ctx, "env" | "executionCtx">) => ({
    capabilities: options.capabilities ?? CAPABILITIES,
    gate: { ...productionGate, ...options.gate },
    // Resources read our own GET endpoints through the whole app, exactly as a client would.
    self: (request: Request) => Promise.resolve(appFetch(request, c.env, c.executionCtx)),
  });

  for (const path of PROTECTED_RESOURCE_PATHS) {
    app.use(path, allowBrowsers);
    app.get(path, (c) =>
      c.json(protectedResourceMetadata(c.env, new URL(c.req.url)), 200, { "cache-control": "public, max-age=300" }),
    );
  }

  app.use(MCP_PATHS.agent, allowBrowsers);
  app.post(MCP_PATHS.agent, async (c) => {
    const { capabilities, gate, self } = serveOptions(c);
    return (await loadServer()).handleMcpRequest(c.req.raw, agentEndpoint(c, capabilities, gate, self));
  });

  app.use(MCP_PATHS.account, allowBrowsers);
  app.post(MCP_PATHS.account, async (c) => {
    // Refused callers never load the MCP code.
    const refused = await authenticateMcpCaller(c);
    if (refused) return refused;
    const { capabilities, self } = serveOptions(c);
    return (await loadServer()).handleMcpRequest(c.req.raw, accountEndpoint(c, capabilities, self));
  });
}
