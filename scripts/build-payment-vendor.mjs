// Builds src/vendor/payments.mjs, the payment stack as its own module (see src/vendor/payments-entry.ts).
// Run by wrangler before every build (wrangler.toml [build]: dev, deploy, check startup) and by the
// test config; it writes only when the output changes, so `wrangler dev` does not rebuild in a loop.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildVendorModule, root } from "./lib/vendor-module.mjs";

export const VENDOR_OUTPUT = path.join(root, "src", "vendor", "payments.mjs");

/**
 * Unused parts of mppx replaced at build time:
 * - the Tempo method's browser payment page (~700 KB), served only when a route passes
 *   `html` to `tempo.charge`, which src/agent/payment-config.ts never does;
 * - the MCP SDK, which mppx/server imports lazily for its MCP transports only (the Worker
 *   settles MCP payments through src/agent, not through mppx's transport);
 * - zod's translations of its error messages into 40-odd languages (~260 KB): zod/mini exports
 *   them as one namespace, which the bundler cannot trim. mppx's schema errors are never shown
 *   to anyone (src/agent/payment-wire.ts turns them into one fixed message); English stays.
 */
const stubs = {
  name: "payment-vendor-stubs",
  setup(build) {
    build.onResolve({ filter: /\/internal\/html\.gen\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}mppx${path.sep}`)
        ? { path: args.path, namespace: "stub-payment-page" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "stub-payment-page" }, () => ({
      contents: `export const html = "<!doctype html><p>This Worker does not serve the payment page.</p>";`,
      loader: "js",
    }));
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}zod${path.sep}`)
        ? { path: args.path, namespace: "stub-zod-locales", pluginData: args.resolveDir }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "stub-zod-locales" }, (args) => ({
      contents: `export { default as en } from "../locales/en.js";`,
      resolveDir: args.pluginData,
      loader: "js",
    }));
    build.onResolve({ filter: /^@modelcontextprotocol\/sdk\/types\.js$/ }, () => ({
      path: path.join(root, "src", "agent", "mcp-sdk-absent.ts"),
    }));
  },
};

/** Builds the module; returns true when it changed on disk. */
export async function buildPaymentVendor() {
  return buildVendorModule({
    entry: "src/vendor/payments-entry.ts",
    output: "src/vendor/payments.mjs",
    script: "scripts/build-payment-vendor.mjs",
    options: { keepNames: true, define: { "process.env.NODE_ENV": '"production"' }, plugins: [stubs] },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const changed = await buildPaymentVendor();
  if (changed) console.log(`built ${path.relative(root, VENDOR_OUTPUT)}`);
}
