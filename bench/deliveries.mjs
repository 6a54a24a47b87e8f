// npm run bench -- deliveries — median latency of a /v1 call with `webhook_url` against the same call
// without it, side by side in one run, over real HTTP against `wrangler dev` (goal: at most 1.1x).
//
// The callback is queued after the answer (waitUntil), so the difference is the URL check before
// the call runs and nothing else. The receiver is the dev server itself over http on loopback
// (allowed outside production; no other port is opened), which answers 405: every callback is a
// failed first attempt, and DELIVERY_RETRY_BASE_SECONDS=3600 keeps retries out of the run.
// Capability: /phone-validator (no outbound network needed). The consumer's attempts run in the
// same workerd process during the run, so their cost is inside the numbers.
//   BENCH_ROUNDS   paired rounds (default 200)
//   BENCH_PORT     dev server port (default 8813, this port)
import { median, p90, withBenchServer } from "./lib/dev-server.mjs";

process.env.BENCH_PORT ??= "8813";
const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const QUERY = "/phone-validator?phone=%2B33612345678";

await withBenchServer("deliveries", { DELIVERY_RETRY_BASE_SECONDS: "3600" }, async ({ base, port, headers }) => {
  const hook = encodeURIComponent(`http://127.0.0.1:${port}/bench-receiver`);
  const plain = `${base}/v1${QUERY}`;
  const withCallback = `${base}/v1${QUERY}&webhook_url=${hook}`;
  const get = async (url) => {
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  };

  for (let i = 0; i < 20; i++) {
    await get(plain);
    await get(withCallback);
  }
  const t = { plain: [], callback: [] };
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 ? ["plain", "callback"] : ["callback", "plain"];
    for (const name of order) {
      const start = performance.now();
      await get(name === "plain" ? plain : withCallback);
      t[name].push(performance.now() - start);
    }
  }
  // The deliveries really went out: the log holds one attempt per callback.
  const log = await (await fetch(`${base}/v1/deliveries?limit=1`, { headers })).json();
  const fmt = (xs) => `median ${median(xs).toFixed(2)} ms, p90 ${p90(xs).toFixed(2)} ms`;
  console.log(`\n${rounds} paired rounds against wrangler dev on :${port}, capability /phone-validator`);
  console.log(`  without webhook_url   ${fmt(t.plain)}`);
  console.log(
    `  with webhook_url      ${fmt(t.callback)}   ratio ${(median(t.callback) / median(t.plain)).toFixed(2)}x (goal <= 1.10x)`,
  );
  console.log(
    `  delivery attempts logged during the run: ${log.data?.meta?.total ?? "?"} (of ${rounds + 20} callbacks)`,
  );
});
