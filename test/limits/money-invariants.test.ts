import { describe, expect, it, vi } from "vitest";
import { runSchedule } from "../support/money-harness.js";

// The money invariants (docs/billing.md) under injected faults, on a few fixed seeds; `npm run
// bench -- money` runs the same harness on fresh seeds. A failing seed is printed: run it again
// with `npm run bench -- money -- --seed <seed> --schedules 1`. These four cover leases (pro-plus,
// scale) and reservations (enterprise), a month's and a day's end, bulk jobs and isolate deaths.
const SEEDS = [7, 12, 13, 19];

describe("money stays exact under faults, at the month's edge and across isolates", () => {
  for (const seed of SEEDS) {
    // Retried: a schedule can fail to come to rest in the test runtime (seen about once in eight
    // full runs, schedule 12, as a timeout; each schedule alone always comes to rest). The lead is
    // BulkJob's lazy imports awaited across Durable Objects ("Cannot perform I/O on behalf of a
    // different Durable Object"); see docs/performance.md. A retry hides only a failure that does not
    // repeat; `npm run bench -- money` reports every schedule, those not at rest included.
    it(`holds every invariant on schedule ${seed}`, { retry: 2, timeout: 30_000 }, async () => {
      // The harness injects faults on purpose: their log lines are not news.
      const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
      const result = await runSchedule(seed).finally(() => quiet.mockRestore());
      console.log(`money schedule ${seed}: ${JSON.stringify({ ...result, violations: result.violations.length })}`);
      expect(result.violations, `seed ${seed}`).toEqual([]);
      expect(result.answers).toBeGreaterThan(0);
    });
  }
});
