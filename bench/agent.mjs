// npm run bench -- agent — median latency of a paid agent-surface call against the same capability
// through /v1 (key + secret), side by side in one run, over real HTTP against `wrangler dev`.
//
// Why over HTTP and not in-process: workerd's clock does not advance during pure CPU work, and the
// gate's cost is mostly CPU (EIP-712 signature recovery, HMAC). Node's clock sees all of it.
//
// It starts its own `wrangler dev` (bench/lib/dev-server.mjs: a free port or BENCH_PORT) with a throwaway state
// directory, applies migrations there, creates a scale-plan account with a key, and stops the
// server at the end. Capability: /phone-validator (no outbound network needed).
//   BENCH_ROUNDS   paired rounds (default 200)
import { evm, Mppx } from "mppx/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { DEV_AUTHORIZATION, DEV_CHAIN_ID, DEV_TOKENS } from "../src/agent/dev-chain.ts";
import { median, p90, withBenchServer } from "./lib/dev-server.mjs";

const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const QUERY = "/phone-validator?phone=%2B33612345678";

await withBenchServer("agent", { AGENTS_PLAN: "scale" }, async ({ base, port, headers }) => {
  const account = privateKeyToAccount(generatePrivateKey());
  const client = Mppx.create({
    polyfill: false,
    methods: [
      evm({
        account,
        authorization: DEV_AUTHORIZATION,
        networks: [DEV_CHAIN_ID],
        currencies: [DEV_TOKENS.USDC, DEV_TOKENS.USDT],
      }),
    ],
  });

  const v1Call = async () => {
    const res = await fetch(`${base}/v1${QUERY}`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/v1 answered ${res.status}`);
  };
  // What an agent experiences: 402, sign, pay, 200.
  const agentCall = async () => {
    const res = await client.fetch(`${base}${QUERY}`);
    await res.arrayBuffer();
    if (res.status !== 200 || res.headers.get("x-payment-charged") !== "true")
      throw new Error(`agent call answered ${res.status}`);
  };
  // The paid request alone (credential prepared beforehand): the gate's own server-side cost.
  const prepared = async () => {
    const unpaid = await fetch(`${base}${QUERY}`);
    return client.createCredential(unpaid);
  };
  const paidOnly = async (authorization) => {
    const res = await fetch(`${base}${QUERY}`, { headers: { authorization } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`paid call answered ${res.status}`);
  };

  for (let i = 0; i < 20; i++) {
    await v1Call();
    await agentCall();
  }
  const t = { v1: [], agent: [], paid: [] };
  for (let i = 0; i < rounds; i++) {
    const credential = await prepared();
    const order = i % 2 ? ["v1", "agent", "paid"] : ["paid", "agent", "v1"];
    for (const name of order) {
      const start = performance.now();
      if (name === "v1") await v1Call();
      else if (name === "agent") await agentCall();
      else await paidOnly(credential);
      t[name].push(performance.now() - start);
    }
  }
  const fmt = (xs) => `median ${median(xs).toFixed(2)} ms, p90 ${p90(xs).toFixed(2)} ms`;
  console.log(`\n${rounds} paired rounds against wrangler dev on :${port}, capability /phone-validator`);
  console.log(`  /v1 (key + secret)                     ${fmt(t.v1)}`);
  console.log(
    `  agent, paid request only (prepared)    ${fmt(t.paid)}   ratio ${(median(t.paid) / median(t.v1)).toFixed(2)}x`,
  );
  console.log(
    `  agent, full flow (402 + sign + paid)   ${fmt(t.agent)}   ratio ${(median(t.agent) / median(t.v1)).toFixed(2)}x`,
  );
});
