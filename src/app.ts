import { type ExecutionContext, Hono } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";
import { getPath } from "hono/utils/url";
import type { V1Frame } from "./account/v1.js";
import { MAX_UPLOAD_BYTES } from "./bulk/constants.js";
import { isBulkUpload } from "./bulk/upload-path.js";
import type { AppBindings, Env } from "./env.js";
import { errorResponse, toErrorResponse } from "./http/errors.js";
import { type Family, FamilyIndex, FamilyLoader } from "./http/families.js";
import type { ApiApp } from "./http/openapi.js";
import { withRequestId } from "./http/request-id.js";
import { limitBody, REQUEST_DEADLINE_MS, withDeadline } from "./http/request-limits.js";
import { withTransportSecurity } from "./http/transport-security.js";
import type { AppFetch, McpRouteOptions } from "./mcp/routes.js";

export interface AppOptions {
  requestDeadlineMs?: number;
  /** What the MCP endpoints serve (tests pass their own capabilities or payment gate). */
  mcp?: McpRouteOptions;
}

/** What a family is built with. */
interface FamilyDeps {
  mcp: McpRouteOptions;
  /** The whole app's fetch (MCP resources read our own GET endpoints through it). */
  appFetch: AppFetch;
}

type RootFamily = Family<Hono<AppBindings>, FamilyDeps>;
type V1Family = Family<ApiApp, FamilyDeps>;

// The route families (src/http/families.ts), each imported and built on the first request that
// may need it. Every module they import is evaluated then, not when the isolate starts: the
// static imports of this file (and of src/index.ts) are the Worker's whole startup.

const OAUTH: RootFamily = {
  name: "oauth",
  at: "/",
  prefixes: ["/assets", "/sign-in", "/oauth", "/device", "/docs", "/.well-known/oauth-authorization-server"],
  build: async () => {
    const app = new Hono<AppBindings>();
    (await import("./oauth/index.js")).registerOAuth(app);
    return app;
  },
};

const MCP: RootFamily = {
  name: "mcp",
  at: "/",
  prefixes: ["/.well-known/oauth-protected-resource", "/mcp", "/v1/mcp"],
  build: async ({ mcp, appFetch }) => {
    const app = new Hono<AppBindings>();
    (await import("./mcp/routes.js")).registerMcp(app, mcp, appFetch);
    return app;
  },
};

/** /v1 itself (request log, authentication); its routes are the V1_FAMILIES. */
const V1: Family<V1Frame, FamilyDeps> = {
  name: "v1",
  at: "/v1",
  prefixes: ["/v1"],
  build: async () => (await import("./account/v1.js")).createV1Frame(),
};

const OPERATOR: RootFamily = {
  name: "operator",
  at: "/operator",
  prefixes: ["/operator"],
  build: async () => (await import("./operator/app.js")).createOperatorApp(),
};

/** The account dashboard (server-rendered pages over /v1, sent in-process through the app's fetch). */
const DASHBOARD: RootFamily = {
  name: "dashboard",
  at: "/",
  prefixes: ["/app"],
  build: async ({ appFetch }) => (await import("./dashboard/index.js")).createDashboard(appFetch),
};

/** The agent surface: every root path no other family claims (the paid paths follow the registry). */
const AGENT: RootFamily = {
  name: "agent",
  at: "/",
  prefixes: [],
  build: async () => (await import("./agent/app.js")).createAgentApp(),
};

/** A /v1 family: route registrations (on /v1 paths without the /v1) on an app of their own. */
function v1Family(name: string, prefixes: string[], registrations: () => Promise<((app: ApiApp) => void)[]>): V1Family {
  return {
    name,
    at: "/v1",
    prefixes,
    build: async () => {
      const [{ newApiApp }, registers] = await Promise.all([import("./http/openapi.js"), registrations()]);
      const app = newApiApp();
      for (const register of registers) register(app);
      return app;
    },
  };
}

/** Every /v1 path no other family claims: the capabilities, one route per path of the registry. */
const CAPABILITY_ROUTES = v1Family("capabilities", [], async () => {
  const [{ CAPABILITIES }, { mountCapabilities }] = await Promise.all([
    import("./capabilities/index.js"),
    import("./capabilities/core/mount-v1.js"),
  ]);
  return [(app) => mountCapabilities(app, CAPABILITIES)];
});

/** The /v1 families in the order /v1 holds their routes (and its OpenAPI document lists them). */
const V1_FAMILIES: readonly V1Family[] = [
  v1Family("account", ["/v1/oauth", "/v1/me", "/v1/rate-limits", "/v1/usage"], async () => {
    const [registration, me, rateLimits, usage] = await Promise.all([
      import("./oauth/routes/register.js"),
      import("./account/routes/me.js"),
      import("./account/routes/rate-limits.js"),
      import("./account/routes/usage.js"),
    ]);
    return [
      registration.registerClientRegistrationRoute,
      me.registerMeRoute,
      rateLimits.registerRateLimitsRoute,
      usage.registerUsageRoute,
    ];
  }),
  v1Family("logs", ["/v1/logs"], async () => [(await import("./account/routes/logs/index.js")).registerLogRoutes]),
  v1Family("keys", ["/v1/keys"], async () => [(await import("./account/routes/keys/index.js")).registerKeyRoutes]),
  v1Family("team", ["/v1/team"], async () => [(await import("./account/routes/team.js")).registerTeamRoutes]),
  v1Family("purchases", ["/v1/credit-packs", "/v1/plan", "/v1/purchases"], async () => [
    (await import("./agent/routes/purchases.js")).registerPurchaseRoutes,
  ]),
  v1Family("reveal", ["/v1/reveal"], async () => [(await import("./account/routes/reveal.js")).registerRevealRoute]),
  v1Family(
    "leads",
    ["/v1/attributes", "/v1/leads", "/v1/leads_lists", "/v1/webhooks", "/v1/deliveries", "/v1/flag"],
    async () => [(await import("./leads/routes/index.js")).registerLeadRoutes],
  ),
  v1Family("bulk", ["/v1/bulk"], async () => [(await import("./bulk/routes/index.js")).registerBulkRoutes]),
  CAPABILITY_ROUTES,
];

/**
 * Every family, and which a request needs by its path. `/` and `/v1/openapi.json` are the frame's
 * own; under `/.well-known` only the two documents above are served (anything else is a 404 that
 * needs no family).
 */
export const FAMILIES = new FamilyIndex<FamilyDeps>(
  [OAUTH, MCP, V1, ...V1_FAMILIES, OPERATOR, DASHBOARD, AGENT],
  { "": AGENT, "/v1": CAPABILITY_ROUTES },
  ["/", "/v1/openapi.json", "/.well-known"],
);

/** The app: one fetch for every surface. Each request first builds the families its path needs. */
export interface App {
  fetch(request: Request, env?: Env, ctx?: ExecutionContext): Promise<Response>;
  /** Builds every family now (the complete app: what the tests of the route table compare with). */
  loadAll(): Promise<void>;
  /** The names of the families built so far. */
  built(): string[];
}

export function createApp(options: AppOptions = {}): App {
  const deadlineMs = options.requestDeadlineMs ?? REQUEST_DEADLINE_MS;
  const fetch = async (request: Request, env?: Env, ctx?: ExecutionContext): Promise<Response> => {
    try {
      await loader.load(FAMILIES.familiesFor(getPath(request)));
    } catch (err) {
      return failing(err).fetch(request, env, ctx);
    }
    return current().fetch(request, env, ctx);
  };
  const loader = new FamilyLoader<FamilyDeps>({
    mcp: options.mcp ?? {},
    appFetch: (request, env, ctx) => fetch(request, env, ctx),
  });

  let v1Document: Promise<unknown> | undefined;
  const buildV1Document = async () => {
    await loader.load([V1, ...V1_FAMILIES]);
    return loader.loaded(V1).document(V1_FAMILIES.map((family) => loader.loaded(family)));
  };

  // Rebuilt (cheaply: the families' routes are built once, here they are only mounted) whenever a
  // family is added; a request under way keeps the app it started with, which holds its families.
  let composed: { built: number; app: Hono<AppBindings> } | undefined;
  const current = () => {
    if (composed?.built !== loader.built) composed = { built: loader.built, app: compose() };
    return composed.app;
  };

  /** The root app with the families built so far, in the order the complete app holds them. */
  const compose = () => {
    const app = frame();
    mount(app, OAUTH);
    // Before /v1: /v1/mcp authenticates its callers itself (an MCP 401 names the OAuth metadata).
    mount(app, MCP);
    app.get("/v1/openapi.json", async (c) => {
      v1Document ??= buildV1Document();
      return c.json(await v1Document);
    });
    const v1 = loader.get(V1);
    if (v1)
      app.route(
        V1.at,
        v1.assemble(V1_FAMILIES.map((family) => loader.get(family)).filter((family) => family !== undefined)),
      );
    mount(app, OPERATOR);
    mount(app, DASHBOARD);
    app.get("/", async (c) =>
      // A browser gets a small page linking the API reference; programs keep the JSON index.
      c.req.header("accept")?.includes("text/html")
        ? (await import("./dashboard/home.js")).homePage(c)
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
    mount(app, AGENT);
    app.notFound((c) => errorResponse(404, "unknown_route", `No route matches ${c.req.method} ${c.req.path}.`));
    return app;
  };

  /** The middleware every request meets, and the error handler. */
  const frame = () => {
    const app = new Hono<AppBindings>();
    // First, so every response (errors from the middlewares below included) carries X-Request-Id.
    app.use("*", withRequestId());
    app.use("*", withTransportSecurity());
    app.use("*", withDeadline(deadlineMs));
    // Caps every body without reading it (src/http/request-limits.ts): each route authenticates its
    // caller before it reads a byte. Bulk uploads (multipart POST /v1/bulk/{type}) stream into R2
    // and have their own, larger cap.
    const apiBodyLimit = limitBody();
    const bulkUploadLimit = limitBody(
      MAX_UPLOAD_BYTES + 1024 * 1024,
      `The upload is larger than the ${MAX_UPLOAD_BYTES / 1024 / 1024} MB bulk file limit (plus 1 MB for the form fields).`,
    );
    app.use("*", (c, next) => (isBulkUpload(c.req.raw) ? bulkUploadLimit(c, next) : apiBodyLimit(c, next)));
    app.use(
      methodNotAllowed({
        app,
        onMethodNotAllowed: (c, methods) =>
          errorResponse(
            405,
            "method_not_allowed",
            `${c.req.method} is not allowed on ${c.req.path}. Allowed: ${methods.join(", ")}.`,
            {
              Allow: methods.join(", "),
            },
          ),
      }),
    );
    app.onError((err, c) => toErrorResponse(err, c));
    return app;
  };

  const mount = (app: Hono<AppBindings>, family: RootFamily) => {
    const built = loader.get(family);
    if (built) app.route(family.at, built);
  };

  /** A family that failed to build: its requests get the 500 envelope (the error is logged). */
  const failing = (err: unknown) => {
    const app = frame();
    app.all("*", () => {
      throw err;
    });
    return app;
  };

  return {
    fetch,
    loadAll: () => loader.load(FAMILIES.all),
    built: () => loader.names(),
  };
}
