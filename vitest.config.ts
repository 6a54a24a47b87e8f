import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { outbound } from "./test/fixtures/outbound.js";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // Test-only bindings: the migrations applied by test/setup.ts and a known operator secret.
          bindings: { TEST_MIGRATIONS: migrations, OPERATOR_SECRET: "test-operator-secret", DOH_URL: "https://dns.test/dns-query", MPP_SECRET_KEY: "test-mpp-secret-key-0123456789abcdef-not-for-production", DELIVERY_RETRY_BASE_SECONDS: "0" },
          // No test reaches the internet: every outbound fetch is answered by fixtures.
          outboundService: outbound,
          // Bulk rows flow through the real local queue in tests; a short batch timeout keeps them quick.
          queueConsumers: { "bulk-rows": { maxBatchTimeout: 0.05 } },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup.ts"],
      include: ["test/**/*.test.ts"],
    },
  };
});
