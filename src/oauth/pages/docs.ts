import { Scalar } from "@scalar/hono-api-reference";
import type { Hono } from "hono";
import { randomToken } from "../../account/crypto.js";
import type { AppBindings } from "../../env.js";

/** Pinned so the page always loads the bundle this CSP was written for. */
const SCALAR_BUNDLE = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1";

/**
 * The reference page's own bundle is the one third-party script any page loads: only it (by host) and
 * our inline config (by nonce) may run. It injects its styles at runtime, hence 'unsafe-inline' styles.
 */
function docsCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' https://cdn.jsdelivr.net`,
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.scalar.com",
    "font-src https://fonts.scalar.com https://cdn.jsdelivr.net data:",
    "img-src 'self' data:",
    "connect-src 'self'",
    "worker-src blob:",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/** GET /docs: an interactive reference for both OpenAPI documents (account API and agent surface). */
export function registerDocsPage(app: Hono<AppBindings>) {
  app.get("/docs", async (c, next) => {
    const nonce = randomToken(16);
    c.header("Content-Security-Policy", docsCsp(nonce));
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    const reference = Scalar<AppBindings>({
      pageTitle: "Contact Intelligence API reference",
      cdn: SCALAR_BUNDLE,
      nonce,
      sources: [
        { title: "Account API (/v1)", slug: "account", url: "/v1/openapi.json" },
        { title: "Agent surface (pay per request)", slug: "agent", url: "/openapi.json" },
      ],
    });
    return reference(c, next);
  });
}
