/// <reference types="vite/client" />
// Types for the test runtime: `env` has the Worker's bindings plus test-only ones, and `exports`
// is the Worker's main module.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("../src/index.js");
  }
  interface Env extends AppEnv {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** The index databases' schema (migrations-index/), applied to INDEX_0 … INDEX_3 by test/setup.ts. */
    TEST_INDEX_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** Inputs for test/fuzz/routes.test.ts (npm run fuzz sets it; empty = the bounded default). */
    FUZZ_RUNS: string;
    /** Replays a fuzz run (the seed is printed by every run). */
    FUZZ_SEED: string;
    /** Seed of the generated fixture sites `npm run bench -- quality` measures (test/fixtures/generator). */
    QUALITY_SEED: string;
    /** How many generated sites that bench measures. */
    QUALITY_SITES: string;
    /** The generator profile of those sites ("classic" or "real-web"). */
    QUALITY_PROFILE: string;
    /** Sites measured at once by that bench. */
    QUALITY_CONCURRENCY: string;
    /** Schedules `npm run bench -- money` runs (bench/money.mjs sets them from its arguments). */
    MONEY_SCHEDULES: string;
    /** The first schedule's seed (empty: a random one, printed). */
    MONEY_SEED: string;
    /** Schedules run at once. */
    MONEY_CONCURRENCY: string;
    /** "1": the workerd benches run at their smoke sizes (`npm run bench -- <name> --smoke`). */
    BENCH_SMOKE: string;
  }
}
type AppEnv = import("../src/env.js").Env;

declare module "*.md?raw" {
  const text: string;
  export default text;
}

declare module "*.txt?raw" {
  const text: string;
  export default text;
}

declare module "*.ts?raw" {
  const text: string;
  export default text;
}

declare module "*.mjs?raw" {
  const text: string;
  export default text;
}

/** Vite's import.meta.glob and its types (the test files are transformed by Vite): see the reference at the top. */
