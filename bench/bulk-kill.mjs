// `npm run bench -- bulk --kill [--rows N] [--wait-sweep]`: a bulk job survives its server dying.
// Starts `wrangler dev` on a throwaway state directory, launches a phone-validator job (it runs
// offline: no DNS, no sites), kills the server with SIGKILL when about a third of the rows are
// done (queued messages and in-flight chunks are lost with it), starts it again on the same state
// directory and port, and waits for the job to finish by itself: the job's Durable Object alarm
// sends again the chunks whose lease ran out (BULK_CHUNK_CLAIM_SECONDS, 10 here). Then it checks
// the outcome: every row exactly once in the results, in order; the job's credits against the
// account's phone credits used (billed at most once). A consumer killed between recording its
// rows and settling them leaves its reservation held until the limiter's sweep refunds it (10
// minutes); --wait-sweep waits for that and checks the account was charged exactly what the job says.

import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { benchPort, prepareBenchState, startDevServer } from "./lib/dev-server.mjs";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    kill: { type: "boolean" },
    rows: { type: "string", default: "10000" },
    "wait-sweep": { type: "boolean" },
    "kill-at": { type: "string", default: "0.33" },
  },
  strict: false,
});
const ROWS = Number(values.rows);
const LEASE_SECONDS = 10;
const log = (...a) => console.log("BENCH kill:", ...a);

/** Distinct numbers of several countries; about one in ten is not a valid number (a row not billed). */
function phoneRows(n) {
  const rows = [["phone"]];
  for (let i = 0; i < n; i++) {
    const k = String(i).padStart(7, "0");
    rows.push([
      i % 10 === 9
        ? `12${k}`
        : i % 3 === 0
          ? `+1 415 ${k.slice(0, 3)} ${k.slice(3)}`
          : i % 3 === 1
            ? `+33 6 ${k.slice(0, 2)} ${k.slice(2, 4)} ${k.slice(4, 6)} ${k.slice(6)}0`
            : `+44 7700 ${k.slice(1)}`,
    ]);
  }
  return rows;
}

async function main() {
  const port = await benchPort();
  const { state, headers } = prepareBenchState("bulk-kill");
  const vars = { BULK_CHUNK_CLAIM_SECONDS: String(LEASE_SECONDS) };
  const api = (base, path, init = {}) =>
    fetch(`${base}/v1${path}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });
  let server = await startDevServer({ state, port, vars });
  try {
    const rows = phoneRows(ROWS);
    const created = await api(server.base, "/bulk/phone-validator", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Kill me", data: rows, launch: true }),
    });
    const { data } = await created.json();
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(data)}`);
    const id = data.id;
    log(`job ${id}: ${ROWS} rows, launched`);
    const t0 = Date.now();
    let job;
    for (;;) {
      job = (await (await api(server.base, `/bulk/phone-validator/${id}`)).json()).data;
      if (job.processed >= ROWS * Number(values["kill-at"]) || job.status !== "running") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (job.status !== "running")
      throw new Error(`the job ended (${job.status}) before it could be killed; use more --rows`);
    await server.stop("SIGKILL");
    log(
      `killed the server (SIGKILL) after ${((Date.now() - t0) / 1000).toFixed(1)} s with ${job.processed} of ${ROWS} rows done`,
    );

    server = await startDevServer({ state, port, vars });
    const restarted = Date.now();
    log(`restarted on the same state directory in ${((restarted - t0) / 1000).toFixed(1)} s`);
    const deadline = Date.now() + 10 * 60_000;
    for (;;) {
      job = (await (await api(server.base, `/bulk/phone-validator/${id}`)).json()).data;
      if (job.status !== "running") break;
      if (Date.now() > deadline) throw new Error(`job ${id} still running with ${job.processed} rows after 10 minutes`);
      await new Promise((r) => setTimeout(r, 500));
    }
    log(
      `job ${job.status} ${((Date.now() - restarted) / 1000).toFixed(1)} s after the restart; ${job.processed} rows done; summary: ${job.summary}${job.error_message ? `; error: ${job.error_message}` : ""}`,
    );
    const history = (await (await api(server.base, `/bulk/phone-validator/${id}/history?limit=100`)).json()).data;
    const requeued = history
      .filter((e) => e.event === "requeued")
      .flatMap((e) => JSON.parse(JSON.stringify(e.meta)).chunks ?? []);
    log(`chunks sent again by the alarm: ${requeued.length} (${requeued.join(", ")})`);

    const download = await (await api(server.base, `/bulk/phone-validator/${id}/download?format=json`)).json();
    const got = download.rows.map((r) => r[0]);
    const expected = rows.slice(1).map((r) => r[0]);
    const seen = new Map();
    for (const p of got) seen.set(p, (seen.get(p) ?? 0) + 1);
    const duplicates = [...seen.values()].filter((n) => n > 1).length;
    const missing = expected.filter((p) => !seen.has(p)).length;
    const inOrder = got.length === expected.length && got.every((p, i) => p === expected[i]);
    const found = job.metrics.results.found;
    const me = (await (await api(server.base, "/me")).json()).data;
    const used = me.requests?.phones?.used;
    log(
      `rows in the results: ${got.length} of ${ROWS}, duplicates ${duplicates}, missing ${missing}, in file order: ${inOrder}`,
    );
    log(
      `billed: the job says ${job.metrics.credits.phone} phone credits for ${found} valid numbers; the account has used ${used}`,
    );
    let usedAfterSweep = null;
    if (values["wait-sweep"]) {
      const until = Date.now() + 12 * 60_000;
      usedAfterSweep = used;
      while (usedAfterSweep > found && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 15_000));
        usedAfterSweep = (await (await api(server.base, "/me")).json()).data.requests?.phones?.used;
      }
      log(
        `after the limiter's sweep: the account has used ${usedAfterSweep} (the job billed ${job.metrics.credits.phone})`,
      );
    }
    // Billed at most once: the job bills each valid number once, and the account is never charged more than that.
    const ok =
      job.status === "completed" &&
      got.length === ROWS &&
      duplicates === 0 &&
      missing === 0 &&
      inOrder &&
      job.metrics.credits.phone === found &&
      (usedAfterSweep === null || usedAfterSweep <= found);
    log(ok ? "OK: every row exactly once, billed at most once" : "FAILED");
    process.exitCode = ok ? 0 : 1;
  } finally {
    await server.stop();
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
