import { builtinModules } from "node:module";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig, type Plugin } from "vitest/config";
import { unstable_readConfig } from "wrangler";
import { fixtureNetwork } from "./scripts/build-fixture-network.mjs";
import { buildPaymentVendor } from "./scripts/build-payment-vendor.mjs";
import { buildPdfVendor } from "./scripts/build-pdf-vendor.mjs";
import { bareImports } from "./scripts/lib/bare-imports.mjs";

/**
 * Packages (bundled by the dependency optimizer) and the generated vendor modules (src/vendor/*.mjs)
 * go to the runtimes without a source map. Every module reaches each runtime through one WebSocket
 * with its map inlined as base64: the packages' maps are several MB (the payment stack's chunk alone
 * 2.4 MB), sent to each of the three runtimes, serialised, compressed and decompressed on the way.
 * A stack through a package then names the bundled file's line instead of the package's source.
 */
const packagesWithoutSourceMaps: Plugin = {
  name: "packages-without-source-maps",
  transform(code, id) {
    // A `{ mappings: "" }` map drops the module's source map (Vite's way to say "none"); Vite keeps
    // the loaded map of a module whose code a transform left as it was, hence the added newline.
    if (id.includes("/node_modules/") || id.includes("/src/vendor/"))
      return { code: `${code}\n`, map: { mappings: "" } };
  },
};

export default defineConfig(async () => {
  // The payment stack and the PDF reader are modules of their own, built from node_modules (wrangler builds them before dev and deploy).
  // The fixture network is built into a module of its own too, not imported here: vitest's transform
  // cache hashes the text of every file this config imports into each cached module's key.
  const [, , { outbound, warmFixtureNetwork }] = await Promise.all([
    buildPaymentVendor(),
    buildPdfVendor(),
    fixtureNetwork(),
  ]);
  warmFixtureNetwork();
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  const indexMigrations = await readD1Migrations(path.join(import.meta.dirname, "migrations-index"));
  return {
    plugins: [
      packagesWithoutSourceMaps,
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // Test-only bindings: development (wrangler.toml sets no ENVIRONMENT: production), the
          // migrations applied by test/setup.ts (the main database's and the index databases') and a
          // known operator secret.
          // Claims are read from D1 on every call: fixtures insert claims straight into D1, behind
          // the in-isolate claims cache (test/engine/claims-cache.test.ts covers the cache itself).
          bindings: {
            ENVIRONMENT: "development",
            TEST_MIGRATIONS: migrations,
            TEST_INDEX_MIGRATIONS: indexMigrations,
            // The contact index on 4 databases (wrangler.toml deploys 1); INDEX_SHARDS=1 npm test keeps it in DB.
            INDEX_SHARDS: process.env.INDEX_SHARDS || "4",
            OPERATOR_SECRET: "test-operator-secret",
            DOH_URL: "https://dns.test/dns-query",
            MPP_SECRET_KEY: "test-mpp-secret-key-0123456789abcdef-not-for-production",
            DELIVERY_RETRY_BASE_SECONDS: "0",
            CLAIMS_CACHE_TTL_MS: "0",
            FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
            FUZZ_SEED: process.env.FUZZ_SEED ?? "",
            QUALITY_SEED: process.env.QUALITY_SEED ?? "",
            QUALITY_SITES: process.env.QUALITY_SITES ?? "",
            QUALITY_PROFILE: process.env.QUALITY_PROFILE ?? "",
            QUALITY_CONCURRENCY: process.env.QUALITY_CONCURRENCY ?? "",
            MAIL_WORLD_SEED: process.env.MAIL_WORLD_SEED ?? "",
            MAIL_WORLD_DOMAINS: process.env.MAIL_WORLD_DOMAINS ?? "",
            MAIL_WORLD_CONCURRENCY: process.env.MAIL_WORLD_CONCURRENCY ?? "",
            MAIL_WORLD_GRAVATAR_SHARE: process.env.MAIL_WORLD_GRAVATAR_SHARE ?? "",
            MONEY_SCHEDULES: process.env.MONEY_SCHEDULES ?? "",
            MONEY_SEED: process.env.MONEY_SEED ?? "",
            MONEY_CONCURRENCY: process.env.MONEY_CONCURRENCY ?? "",
            // "1": the workerd benches (bench/*.bench.test.ts) run at their smoke sizes (`--smoke`).
            BENCH_SMOKE: process.env.BENCH_SMOKE ?? "",
          },
          // No test reaches the internet: every outbound fetch is answered by fixtures.
          outboundService: outbound,
          // Queued work is consumed within 50 ms instead of 1-5 s, so tests see log rows, bulk results
          // and deliveries without waiting out production batch windows. Miniflare replaces a
          // consumer's whole configuration, so the rest (batch size, retries, dead-letter queue) is
          // carried over from wrangler.toml.
          queueConsumers: Object.fromEntries(
            (unstable_readConfig({ config: "./wrangler.toml" }).queues.consumers ?? []).map(
              (q: { queue: string; max_batch_size?: number; max_retries?: number; dead_letter_queue?: string }) => [
                q.queue,
                {
                  maxBatchSize: q.max_batch_size,
                  maxBatchTimeout: 0.05,
                  maxRetries: q.max_retries,
                  deadLetterQueue: q.dead_letter_queue,
                },
              ],
            ),
          ),
          // Deep crawls go to a queue nobody consumes: every file shares one runtime, and a deep pass
          // left running by one file would write into the next file's emptied index. Tests that
          // cover the deep pass hand a batch to the consumer themselves (createMessageBatch).
          queueProducers: { CRAWL_QUEUE: { queueName: "crawl-deep-unconsumed-in-tests" } },
        },
      }),
    ],
    test: {
      // Modules once transformed are kept on disk (node_modules/.experimental-vitest-cache, keyed by
      // their content and the config) for the next run: the second `npm test` on a tree skips most of
      // the TypeScript transform of src/ and test/ (its transform time fell from 51 s to 21 s summed).
      experimental: { fsModuleCache: true },
      setupFiles: ["./test/setup.ts"],
      // Every package the suite imports is bundled once into a few modules (kept in node_modules/.vite
      // between runs) instead of being sent to each runtime file by file: viem alone is ~1,400
      // modules, mppx, zod, drizzle-orm and libphonenumber-js ~100 each. Unbundled, the first file of
      // a runtime that imported the payment client spent 10-20 s loading it.
      deps: {
        optimizer: {
          ssr: {
            enabled: true,
            include: [
              ...bareImports(import.meta.dirname, ["src", "test", "bench"]),
              // What the JSX transform imports (tsconfig.json's jsxImportSource).
              "hono/jsx/jsx-runtime",
              "hono/jsx/jsx-dev-runtime",
            ],
            // Provided by workerd (nodejs_compat and its own modules), as in wrangler's build.
            rolldownOptions: { external: [/^node:/, /^cloudflare:/, ...builtinModules] },
          },
        },
      },
      include: ["test/**/*.test.ts"],
      // One workerd runtime for every file of a worker instead of a fresh one per file: per-file setup was
      // ~85% of the suite's wall time. Files therefore share D1, KV and Durable Object storage
      // and module state, so tests must not assume an empty database (each creates its own
      // accounts via test/support/accounts.ts and scopes what it asserts to them).
      isolate: false,
      // A few tests drive hundreds of rows or whole bulk jobs through the Worker: ~2 s alone, but 15 s
      // was crossed (bulk/finder-options) with two suites and four other builds on two cores. A test
      // that fails only because the machine is busy lands nothing; a hung one now fails after a minute.
      testTimeout: 60_000,
      // Three workers (three workerd runtimes) on two cores, each with the files it is given: a file
      // mostly waits (on workerd, queues, timers), so even two left half the CPU idle. Vitest alone,
      // two against three one after the other on the shared machine: 195 → 165 s and 243 → 128 s
      // wall, CPU 111 → 120 s and 124 → 115 s (a third runtime loads the src graph once more).
      maxWorkers: 3,
    },
  };
});
