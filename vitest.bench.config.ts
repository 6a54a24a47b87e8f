// Benchmarks run inside workerd with the same bindings as the tests; `npm run bench -- limits`.

import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

export default defineConfig(async (env) => {
  const resolved = typeof base === "function" ? await base(env) : base;
  return mergeConfig(resolved, { test: { include: ["bench/**/*.bench.test.ts"], testTimeout: 120_000 } });
});
