import type { Hono } from "hono";
import { html, raw } from "hono/html";
import type { AppBindings } from "../../env.js";

/**
 * The API reference UI (@scalar/api-reference's single-file browser bundle) is served from this
 * origin by the assets binding (public/assets/docs/, vendored by scripts/vendor-docs-ui.mjs), never
 * from a CDN: /docs works offline and under a policy that names no other host. The version is in
 * the file name, so a new version is a new URL.
 */
export const SCALAR_VERSION = "1.72.1";
export const DOCS_ASSETS = {
  bundle: `/assets/docs/scalar-api-reference-${SCALAR_VERSION}.js`,
  mount: "/assets/docs/reference.js",
} as const;

/**
 * What the reference shows, and the extras it must not load: Scalar's AI chat ("agent") and MCP
 * panels, its telemetry, its web fonts (fonts.scalar.com) and its developer tools all reach
 * Scalar's servers. The client keeps working (it calls our own API only).
 */
export const REFERENCE_CONFIG = {
  sources: [
    { title: "Account API (/v1)", slug: "account", url: "/v1/openapi.json" },
    { title: "Agent surface (pay per request)", slug: "agent", url: "/openapi.json" },
  ],
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
} as const;

/**
 * Scripts from this origin only (the bundle and the mount script; the configuration is a JSON data
 * block, which never runs). The bundle injects its stylesheet at runtime, hence inline styles.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** JSON inside <script type="application/json">: `<` escaped so no string can close the element. */
const jsonBlock = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

function docsPage() {
  // Something to paint at once (the bundle is ~4 MB to parse): a title and the raw documents,
  // removed when the reference mounts (outside #app: the reference would try to hydrate it). Both scripts are deferred, so they never hold up that paint.
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Contact Intelligence API reference</title>
<link rel="icon" href="/favicon.ico">
<script src="${DOCS_ASSETS.bundle}" defer></script>
<script src="${DOCS_ASSETS.mount}" defer></script>
</head>
<body>
<main id="reference-loading" style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>Contact Intelligence API reference</h1>
<p>Loading the interactive reference… The OpenAPI documents: <a href="/v1/openapi.json">account API</a>, <a href="/openapi.json">agent surface</a>. <a href="/">Home</a></p>
</main>
<div id="app"></div>
<script type="application/json" id="reference-config">${raw(jsonBlock(REFERENCE_CONFIG))}</script>
</body>
</html>`;
}

/** GET /docs: an interactive reference for both OpenAPI documents (account API and agent surface). */
export function registerDocsPage(app: Hono<AppBindings>) {
  app.get("/docs", async (c) =>
    c.html(await docsPage(), 200, {
      "Content-Security-Policy": DOCS_CSP,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "Cache-Control": "public, max-age=300",
    }),
  );
}
