/** Bindings and variables the Worker is given (wrangler.toml, .dev.vars, secrets). */
export interface Env {
  DB: D1Database;
  /** "production" turns on production-only guards (private-address fetch ban, no dev payment method). */
  ENVIRONMENT?: string;
  /** Shared secret for operator-only routes (claims, imports); unset means those routes answer 503. */
  OPERATOR_SECRET?: string;
  /** DNS-over-HTTPS JSON endpoint; default https://cloudflare-dns.com/dns-query. */
  DOH_URL?: string;
}

export type AppBindings = { Bindings: Env; Variables: AppVariables };

export interface AppVariables {
  auth: import("./account/auth.js").AuthContext;
  requestStartedAt: number;
  /** Filled by routes that belong to an endpoint group, read by the request logger. */
  logType?: string;
  logCost?: boolean;
  /** Usage bucket (search, verifier, phones, ...) counted by /v1/usage when logCost is true. */
  usageCategory?: string;
}

export function isProduction(env: Pick<Env, "ENVIRONMENT">): boolean {
  return env.ENVIRONMENT === "production";
}
