// Routes measured side by side with autocannon against one `wrangler dev` (bench/lib/dev-server.mjs):
// every route at every connection count, over several rounds that alternate the route order so a
// drifting machine load hurts no route more than another, each cell printed as a ratio to the
// baseline route (the first one) at the same connection count.
import autocannon from "autocannon";
import { devOperatorSecret, withBenchServer } from "./dev-server.mjs";

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

// French mobile numbers +336 followed by 8 digits, a different one per call across the whole run.
let nextNumber = 10_000_000 + Math.floor(Math.random() * 1_000_000);
/** A phone-validator path with a number never asked before in this run: each call is billed. */
export const newNumberPath = () =>
  `/v1/phone-validator?phone=%2B336${String(nextNumber++ % 100_000_000).padStart(8, "0")}`;

/** The routes the hot bench measures, by the names the cpu and profile benches take. */
export const NAMED_ROUTES = {
  root: { path: "/", auth: false },
  billed: { path: "/v1/phone-validator", auth: true, pathEachCall: newNumberPath },
  repeat: { path: "/v1/phone-validator?phone=%2B33612345678", auth: true },
  status: { path: "/v1/domain-status?domain=gmail.com", auth: true },
  me: { path: "/v1/me", auth: true },
};

function run(url, headers, connections, duration, pathEachCall) {
  const requests = pathEachCall ? [{ setupRequest: (req) => ({ ...req, path: pathEachCall() }) }] : undefined;
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections, duration, pipelining: 1, requests }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

/** One autocannon run of `route` (`{path, auth, pathEachCall?}`) against `base`. */
export const load = (base, headers, route, connections, duration) =>
  run(`${base}${route.path}`, route.auth ? headers : {}, connections, duration, route.pathEachCall);

/**
 * Starts the bench server (scale plan, no rate limits, unless `options.plan` names another) and
 * gives its account a pack of credits large enough for any run, then runs `body({ base, port,
 * inspectorPort, headers, operatorSecret })`. `options` go to withBenchServer (e.g. `devFlags`, `plan`).
 */
export async function withFundedBenchServer(name, body, options = {}) {
  const operatorSecret = devOperatorSecret();
  return withBenchServer(
    name,
    { OPERATOR_SECRET: operatorSecret },
    async (server) => {
      await fundBenchAccount(server.base, server.headers, operatorSecret);
      return body({ ...server, operatorSecret });
    },
    options,
  );
}

/** Gives the account `headers` authenticate a credit pack large enough for any run. */
export async function fundBenchAccount(base, headers, operatorSecret) {
  const me = await (await fetch(`${base}/v1/me`, { headers })).json();
  const accountId = me.data?.user_id ?? me.user_id;
  const pack = await fetch(`${base}/operator/accounts/${accountId}/credit-packs`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-operator-secret": operatorSecret },
    body: JSON.stringify({ credits: 10_000_000 }),
  });
  if (!pack.ok) throw new Error(`credit pack refused (${pack.status}): ${await pack.text()} (account ${accountId})`);
}

/**
 * Starts the bench server (withFundedBenchServer), measures
 * `routes` (`{name, path, auth, pathEachCall?}`; the first is the baseline) and returns the cells:
 * `${name}|${connections}` -> {rps, p50, p99, bad}. Prints the table; sets a failing exit code when
 * any answer was not 2xx. `plan`: the bench account's plan (scale by default).
 */
export async function measureSideBySide(name, routes, { seconds, rounds, connectionCounts, plan }) {
  return withFundedBenchServer(
    name,
    async ({ base, port, headers }) => {
      // Warm-up: every route briefly, so isolates and SQLite pages are warm.
      for (const r of routes) await load(base, headers, r, 10, 1);

      const raw = new Map(); // `${route}|${connections}` -> { requests, seconds, p50s, p99s, bad }
      for (let round = 0; round < rounds; round++) {
        for (const connections of connectionCounts) {
          const order = round % 2 ? [...routes].reverse() : routes;
          for (const r of order) {
            const res = await load(base, headers, r, connections, seconds);
            const key = `${r.name}|${connections}`;
            const cell = raw.get(key) ?? { requests: 0, seconds: 0, p50s: [], p99s: [], bad: 0 };
            cell.requests += res.requests.total;
            cell.seconds += res.duration;
            cell.p50s.push(res.latency.p50);
            cell.p99s.push(res.latency.p99);
            cell.bad += res.non2xx + res.errors + res.timeouts;
            raw.set(key, cell);
          }
        }
      }

      const cells = new Map();
      for (const [key, c] of raw)
        cells.set(key, { rps: c.requests / c.seconds, p50: mean(c.p50s), p99: mean(c.p99s), bad: c.bad });
      console.log(`\nwrangler dev on :${port}, ${rounds} round(s) x ${seconds} s per cell, autocannon`);
      console.log("route                   conns     req/s   ratio    p50 ms  Δp50 ms    p99 ms  non-2xx");
      let failed = false;
      for (const connections of connectionCounts) {
        const baseline = cells.get(`${routes[0].name}|${connections}`);
        for (const r of routes) {
          const cell = cells.get(`${r.name}|${connections}`);
          if (cell.bad) failed = true;
          console.log(
            [
              r.name.padEnd(22),
              String(connections).padStart(6),
              cell.rps.toFixed(0).padStart(9),
              `${(cell.rps / baseline.rps).toFixed(2)}x`.padStart(7),
              cell.p50.toFixed(2).padStart(9),
              (cell.p50 - baseline.p50).toFixed(2).padStart(8),
              cell.p99.toFixed(2).padStart(9),
              String(cell.bad).padStart(8),
            ].join(" "),
          );
        }
      }
      if (failed) {
        console.error("\nSome requests did not answer 2xx; the numbers above are not comparable.");
        process.exitCode = 1;
      }
      return cells;
    },
    { plan },
  );
}
