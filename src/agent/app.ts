import { Hono } from "hono";
import type { Capability } from "../capabilities/core/registry.js";
import { CAPABILITIES } from "../capabilities/index.js";
import type { AppBindings, Env } from "../env.js";
import { newApiApp } from "../http/openapi.js";
import { agentOpenApiDocument, llmsTxt, soldCapabilities } from "./discovery.js";
import { durableLedger } from "./ledger-client.js";
import { paymentProviderFor } from "./payment-config.js";
import { type GateDeps, servePaid } from "./payment-gate.js";
import { PaymentGateUnavailable, type PaymentProvider } from "./provider.js";
import { registerEnrollmentRoutes } from "./routes/enrollment.js";

export interface AgentAppOptions {
  /** What is sold; production passes the registry. Tests pass their own list. */
  capabilities?: readonly Capability[];
  /** Payment provider and ledger; tests wrap the real ones to inject faults. */
  gate?: Partial<GateDeps>;
}

export const productionGate: GateDeps = {
  provider: paymentProviderFor,
  ledger(env: Env) {
    if (!env.PAYMENT_LEDGER) throw new PaymentGateUnavailable("The payment ledger is not bound (PAYMENT_LEDGER).");
    return durableLedger(env.PAYMENT_LEDGER);
  },
};

/**
 * The agent surface at the root: paid GET endpoints (one per capability with an agentPath and a
 * price), free discovery (/openapi.json, /llms.txt) and free optional enrollment.
 */
export function createAgentApp(options: AgentAppOptions = {}) {
  const app = new Hono<AppBindings>();
  const gate: GateDeps = { ...productionGate, ...options.gate };
  const capabilities = () => options.capabilities ?? CAPABILITIES;

  const providerOrNull = async (env: Env, url: string): Promise<PaymentProvider | null> => {
    try {
      return await gate.provider(env, new URL(url).hostname);
    } catch {
      return null;
    }
  };

  app.get("/openapi.json", async (c) =>
    c.json(
      agentOpenApiDocument(capabilities(), await providerOrNull(c.env, c.req.url), new URL(c.req.url).origin),
      200,
      { "cache-control": "public, max-age=300" },
    ),
  );
  app.get("/llms.txt", async (c) =>
    c.text(llmsTxt(capabilities(), await providerOrNull(c.env, c.req.url), new URL(c.req.url).origin), 200, {
      "cache-control": "public, max-age=300",
    }),
  );
  const enrollments = newApiApp();
  registerEnrollmentRoutes(enrollments);
  app.route("/", enrollments);

  for (const cap of soldCapabilities(capabilities())) {
    app.get(cap.agentPath, (c) =>
      servePaid(
        cap,
        {
          env: c.env,
          query: firstValues(c.req.queries()),
          host: new URL(c.req.url).hostname,
          authorization: c.req.header("authorization"),
          clientIp: c.req.header("cf-connecting-ip"),
          waitUntil: (p) => c.executionCtx.waitUntil(p),
        },
        gate,
      ),
    );
  }
  return app;
}

function firstValues(queries: Record<string, string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(queries).map(([k, v]) => [k, v[0] ?? ""]));
}
