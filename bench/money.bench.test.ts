// `npm run bench -- money -- --schedules 1000 [--seed S] [--concurrency C]` (bench/money.mjs runs
// this file in workerd): random schedules of the money harness (test/support/money-harness.ts) from
// a printed seed, against the invariants of docs/billing.md. It prints every violation with the seed
// of its schedule (run it again with `--seed <seed> --schedules 1`), and what isolate deaths lost.
import { env } from "cloudflare:workers";
import { expect, it, vi } from "vitest";
import { HARNESS_CLIENT, runSchedule, type ScheduleResult } from "../test/support/money-harness.js";

const schedules = Number(env.MONEY_SCHEDULES || 100);
const first = env.MONEY_SEED ? Number(env.MONEY_SEED) : Math.floor(Math.random() * 1_000_000_000);
const concurrency = Number(env.MONEY_CONCURRENCY || 4);

/** A schedule takes a few seconds; one not done after this long is reported with its seed. */
const STALL_MS = 120_000;
const out = (line: string) => console.log(`MONEY ${line}`);
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? 0;

it(`runs ${schedules} money schedules from seed ${first}`, async () => {
  // The harness injects faults on purpose: their log lines are not news.
  vi.spyOn(console, "error").mockImplementation(() => {});
  out(`seed ${first}, ${schedules} schedules, ${concurrency} at once`);
  const started = Date.now();
  const results: ScheduleResult[] = [];
  const aborted: number[] = [];
  const stalledSeeds: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < schedules; i = next++) {
      let result: ScheduleResult;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const stalled = new Promise<"stalled">((resolve) => (timer = setTimeout(() => resolve("stalled"), STALL_MS)));
        const outcome = await Promise.race([runSchedule(first + i), stalled]);
        if (outcome === "stalled") {
          // Not at rest after STALL_MS: no verdict on it, and the run goes on (replay it with its seed).
          stalledSeeds.push(first + i);
          out(`STALLED seed ${first + i}: not at rest after ${STALL_MS / 1000} s`);
          continue;
        }
        result = outcome;
      } catch (err) {
        // The runtime gave up on the schedule (not an invariant's verdict): said, with its seed.
        aborted.push(first + i);
        out(`ABORTED seed ${first + i}: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      } finally {
        clearTimeout(timer);
      }
      results.push(result);
      if (result.violations.length)
        out(
          `VIOLATION seed ${result.seed} (${result.plan}, ${result.boundary ?? "no boundary"}): ${result.violations.join("; ")}`,
        );
      if (results.length % 50 === 0)
        out(`${results.length} schedules, ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));

  const violations = results.reduce((n, r) => n + r.violations.length, 0);
  const losses = results.flatMap((r) => r.lossPerDeath);
  const sum = (f: (r: ScheduleResult) => number) => results.reduce((n, r) => n + f(r), 0);
  const plans = [...new Set(results.map((r) => r.plan))]
    .map((p) => `${p} ${results.filter((r) => r.plan === p).length}`)
    .join(", ");
  out("");
  out(
    `seed ${first}: ${results.length} schedules (${plans}; ${results.filter((r) => r.boundary === "month").length} across a month's end, ${results.filter((r) => r.boundary === "day").length} across a day's end, ${results.filter((r) => r.bulk).length} with a bulk job) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  out(`answers ${sum((r) => r.answers)}, charged ${sum((r) => r.billed)}, refused (402/429) ${sum((r) => r.refused)}`);
  out(
    `invariant violations: ${violations} (goal 0)${
      violations
        ? ` in schedules ${results
            .filter((r) => r.violations.length)
            .map((r) => r.seed)
            .join(", ")}`
        : ""
    }`,
  );
  out(
    `isolate deaths: ${losses.length}; credits lost per death: max ${Math.max(0, ...losses)}, p99 ${quantile(losses, 0.99)}, mean ${(losses.reduce((a, b) => a + b, 0) / Math.max(1, losses.length)).toFixed(2)} (bound: a lease of ${HARNESS_CLIENT.leaseCredits} credits plus the reservation-path answers not yet settled)`,
  );
  out(
    `schedules not at rest after ${STALL_MS / 1000} s (no verdict): ${stalledSeeds.length}${stalledSeeds.length ? ` (seeds ${stalledSeeds.join(", ")})` : ""}`,
  );
  out(
    `schedules the runtime aborted (no verdict): ${aborted.length}${aborted.length ? ` (seeds ${aborted.join(", ")})` : ""}`,
  );
  out(`charges whose report died with its isolate (counted in /v1/usage, no log row): ${sum((r) => r.reportsLost)}`);
  out(
    `slow faults played: ${sum((r) => r.slow.roundTrips)} isolates with round trips past the orphan time, ${sum((r) => r.slow.outages)} limiter outages past the drain budget, ${sum((r) => r.slow.calls)} calls past a quiet lease's old life, ${sum((r) => r.slow.chunks)} chunks past the reservation's age, ${sum((r) => r.slow.jumps)} jumps of minutes or hours`,
  );
  // Enterprise: the verifier's day, nearly used up, shared by the isolates (rate shares).
  const shared = results.filter((r) => r.rate);
  const atRest = shared.filter((r) => r.rate?.unserved !== null);
  // Counted but never answered, beyond the calls that gave no answer: what dead isolates' shares left.
  const beyond = (r: ScheduleResult) => Math.max(0, (r.rate?.unserved ?? 0) - (r.rate?.unanswered ?? 0));
  const unservedPerDeath = atRest.filter((r) => r.deaths).map((r) => beyond(r) / r.deaths);
  const beyondWithoutDeath = atRest.filter((r) => !r.deaths).reduce((n, r) => n + beyond(r), 0);
  out(
    `rate shares (enterprise, ${shared.length} schedules): admitted ${sum((r) => r.rate?.admitted ?? 0)} of ${sum((r) => r.rate?.room ?? 0)} requests left in their first day (never past the limit: see violations); ${atRest.length} still in that day at rest: counted but never answered ${sum((r) => r.rate?.unserved ?? 0)}, of which beyond the ${sum((r) => r.rate?.unanswered ?? 0)} calls that gave no answer ${sum(beyond)} (per death where isolates died: max ${Math.max(0, ...unservedPerDeath).toFixed(1)}, bound a share of ${HARNESS_CLIENT.rateShareUnits}; where none died: ${beyondWithoutDeath}), shares open at rest ${sum((r) => r.rate?.openAtRest ?? 0)} (dead isolates' only)`,
  );
  expect(violations).toBe(0);
}, 3_600_000);
