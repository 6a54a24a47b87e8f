// npm run bench -- bulk — inside workerd with the test network (fixture DNS and sites), not part of `npm test`.
// Whole bulk jobs end to end: create (JSON rows -> R2 chunks), launch, every row through the real
// local `bulk-rows` queue and the capability executor, results written to R2, then the download.
// Baseline in the same run: the same capability called row after row through the executor directly
// (what a client looping over /v1 would get, minus HTTP). Phases are logged with wall-clock
// timestamps so bench/bulk.mjs can match them with the workerd memory samples it takes.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { bulkType } from "../src/bulk/types.js";
import { executeCapability } from "../src/capabilities/core/execute.js";
import type { Env } from "../src/env.js";
import { call, createAccount } from "../test/support/accounts.js";

// `--smoke` (BENCH_SMOKE=1): the same jobs at a hundredth of their sizes, to see the bench still runs.
const SMOKE = env.BENCH_SMOKE === "1";
const size = (rows: number) => (SMOKE ? Math.max(5, rows / 100) : rows);
const DOMAINS = ["acme-widgets.test", "blau-gmbh.test", "globex.test", "initech.test", "cloudy-tools.test"];
const FIRST = [
  "Anna",
  "Boris",
  "Carla",
  "David",
  "Elena",
  "Frank",
  "Greta",
  "Hugo",
  "Irene",
  "Jonas",
  "Karin",
  "Lukas",
  "Marta",
  "Nils",
  "Olga",
  "Paul",
  "Rosa",
  "Sven",
  "Tina",
  "Uwe",
];
const LAST = [
  "Baker",
  "Fischer",
  "Meyer",
  "Schulz",
  "Wagner",
  "Becker",
  "Hoffmann",
  "Koch",
  "Richter",
  "Klein",
  "Wolf",
  "Neumann",
  "Schwarz",
  "Braun",
  "Zimmermann",
  "Hartmann",
  "Lange",
  "Krause",
  "Werner",
  "Lehmann",
  "Walter",
  "Peters",
  "Frank",
  "Maier",
  "Kaiser",
];

function finderRows(n: number) {
  const rows: string[][] = [["domain", "first_name", "last_name"]];
  for (let i = 0; rows.length <= n; i++)
    rows.push([
      DOMAINS[i % DOMAINS.length]!,
      FIRST[i % FIRST.length]!,
      `${LAST[Math.floor(i / FIRST.length) % LAST.length]}${Math.floor(i / (FIRST.length * LAST.length)) || ""}`,
    ]);
  return rows;
}
const verifierRows = (n: number) => [
  ["email"],
  ...finderRows(n)
    .slice(1)
    .map(([d, f, l]) => [`${f!.toLowerCase()}.${l!.toLowerCase()}@${d}`]),
];

async function runJob(type: string, rows: string[][], label: string) {
  const account = await createAccount({ plan: "enterprise" });
  const h = { ...account.headers, "content-type": "application/json" };
  console.log(`BENCH phase ${label} start ${Date.now()}`);
  const created = await call(`/v1/bulk/${type}`, {
    method: "POST",
    headers: h,
    body: JSON.stringify({ name: label, data: rows, launch: true }),
  });
  const { data } = (await created.json()) as { data: { id: number; message?: string } };
  const t0 = Date.now();
  let job: { status: string; processed: number; metrics: { results: { found: number } } };
  for (;;) {
    job = (
      (await (await call(`/v1/bulk/${type}/${data.id}`, { headers: account.headers })).json()) as { data: typeof job }
    ).data;
    if (job.status !== "running" && job.status !== "pending") break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (Date.now() - t0) / 1000;
  const download = await call(`/v1/bulk/${type}/${data.id}/download`, { headers: account.headers });
  const bytes = (await download.arrayBuffer()).byteLength;
  // A bench that measured a failed job measured nothing.
  expect(job.status, `${label}: job ${data.id}`).toBe("completed");
  expect(job.processed).toBe(rows.length - 1);
  console.log(`BENCH phase ${label} end ${Date.now()}`);
  // Time for bench/bulk.mjs to read the consumer isolate's heap after this job (forced GC over the inspector).
  await new Promise((r) => setTimeout(r, 1500));
  console.log(
    `BENCH result ${label}: ${job.status}, ${job.processed} rows in ${seconds.toFixed(1)} s = ${(job.processed / seconds).toFixed(1)} rows/s, found ${job.metrics.results.found}, download ${(bytes / 1024).toFixed(0)} KB`,
  );
  return job.processed / seconds;
}

async function direct(type: string, rows: string[][]) {
  const t = bulkType(type)!;
  const account = await createAccount({ plan: "enterprise" });
  const ctx = createExecutionContext();
  const header = rows[0]!;
  const t0 = Date.now();
  for (const row of rows.slice(1)) {
    const cells = Object.fromEntries(header.map((h, i) => [h, row[i]!]));
    const params = t.capability.params.parse(t.decl.paramsFor(cells, {}));
    await executeCapability(t.capability, params as Record<string, unknown>, {
      env: env as unknown as Env,
      waitUntil: (p) => ctx.waitUntil(p),
      accountId: account.accountId,
      plan: "enterprise",
      surface: "bulk",
    });
  }
  const rate = (rows.length - 1) / ((Date.now() - t0) / 1000);
  console.log(
    `BENCH baseline ${type}: ${rows.length - 1} rows one after another through the executor = ${rate.toFixed(1)} rows/s`,
  );
  return rate;
}

it("bulk jobs end to end: rows per second against the executor called row by row", async () => {
  // Warm the fixture sites into the index once, as a long-lived deployment would have them.
  await direct("finder", finderRows(DOMAINS.length));
  const baseFinder = await direct("finder", finderRows(size(300)));
  const baseVerifier = await direct("verifier", verifierRows(size(300)));
  const small = await runJob("finder", finderRows(size(1_000)), `finder-${size(1_000)}`);
  const finder = await runJob("finder", finderRows(size(10_000)), `finder-${size(10_000)}`);
  const verifier = await runJob("verifier", verifierRows(size(10_000)), `verifier-${size(10_000)}`);
  console.log(
    `BENCH ratio finder bulk/direct: ${(finder / baseFinder).toFixed(2)}x (1,000 rows: ${(small / baseFinder).toFixed(2)}x); verifier bulk/direct: ${(verifier / baseVerifier).toFixed(2)}x`,
  );
}, 1_800_000);

it("consumer memory: a 1,000-row job against a 10,000-row job (verifier, the faster type)", async () => {
  await runJob("verifier", verifierRows(size(1_000)), `memory-verifier-${size(1_000)}`);
  await runJob("verifier", verifierRows(size(10_000)), `memory-verifier-${size(10_000)}`);
}, 1_800_000);
