// npm run bench:agent — median latency of a paid agent-surface call against the same capability
// through /v1 (key + secret), side by side in one run, over real HTTP against `wrangler dev`.
//
// Why over HTTP and not in-process: workerd's clock does not advance during pure CPU work, and the
// gate's cost is mostly CPU (EIP-712 signature recovery, HMAC). Node's clock sees all of it.
//
// It starts its own `wrangler dev` on BENCH_PORT (default 8797, never 8787) with a throwaway state
// directory, applies migrations there, creates a scale-plan account with a key, and stops the
// server at the end. Capability: /phone-validator (no outbound network needed).
//   BENCH_ROUNDS   paired rounds (default 200)
import { spawn, spawnSync } from "node:child_process";
import { createHash, pbkdf2Sync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Mppx, evm } from "mppx/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { DEV_AUTHORIZATION, DEV_CHAIN_ID, DEV_TOKENS } from "../src/agent/dev-chain.ts";

const root = path.resolve(import.meta.dirname, "..");
const wranglerBin = path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
const port = Number(process.env.BENCH_PORT ?? 8797);
if (port === 8787) throw new Error("BENCH_PORT 8787 is reserved for `npm start`.");
const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const state = mkdtempSync(path.join(tmpdir(), "bench-agent-"));
const base = `http://127.0.0.1:${port}`;
const QUERY = "/phone-validator?phone=%2B33612345678";

function wrangler(args) {
  const res = spawnSync(process.execPath, [wranglerBin, ...args, "--persist-to", state], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  if (res.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${res.stderr}${res.stdout}`);
  return res.stdout;
}
const sql = (command) => wrangler(["d1", "execute", "DB", "--local", "--json", "--command", command]);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

let server;
try {
  wrangler(["d1", "migrations", "apply", "DB", "--local"]);
  const key = `ck_${randomBytes(18).toString("base64url")}`;
  const secret = `cs_${randomBytes(32).toString("base64url")}`;
  const sha = createHash("sha256").update(secret).digest("hex");
  // An account without a password cannot use the API (spec: 401), so give it one.
  const salt = randomBytes(16);
  const pw = `pbkdf2-sha256$100000$${salt.toString("base64")}$${pbkdf2Sync("bench", salt, 100_000, 32, "sha256").toString("base64")}`;
  sql(`INSERT INTO accounts (email, confirmed, plan, kind, password_hash) VALUES ('bench@example.com', 1, 'scale', 'user', '${pw}')`);
  sql(
    `INSERT INTO api_keys (account_id, name, public_key, secret_hash, expires_at, created_at, updated_at)
     SELECT id, 'bench', '${key}', '${sha}', ${Date.now() + 86_400_000}, ${Date.now()}, ${Date.now()} FROM accounts WHERE email = 'bench@example.com'`,
  );

  server = spawn(
    process.execPath,
    [wranglerBin, "dev", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", state,
      "--var", `MPP_SECRET_KEY:${randomBytes(32).toString("base64url")}`, "--var", "AGENTS_PLAN:scale", "--var", "ENVIRONMENT:development"],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  let log = "";
  server.stdout.on("data", (d) => (log += d));
  server.stderr.on("data", (d) => (log += d));
  const started = Date.now();
  for (;;) {
    try {
      if ((await fetch(`${base}/`)).ok) break;
    } catch {}
    if (Date.now() - started > 90_000) throw new Error(`wrangler dev did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }

  const v1Headers = { "X-Service-Key": key, "X-Service-Secret": secret };
  const account = privateKeyToAccount(generatePrivateKey());
  const client = Mppx.create({
    polyfill: false,
    methods: [evm({ account, authorization: DEV_AUTHORIZATION, networks: [DEV_CHAIN_ID], currencies: [DEV_TOKENS.USDC, DEV_TOKENS.USDT] })],
  });

  const v1Call = async () => {
    const res = await fetch(`${base}/v1${QUERY}`, { headers: v1Headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/v1 answered ${res.status}`);
  };
  // What an agent experiences: 402, sign, pay, 200.
  const agentCall = async () => {
    const res = await client.fetch(`${base}${QUERY}`);
    await res.arrayBuffer();
    if (res.status !== 200 || res.headers.get("x-payment-charged") !== "true") throw new Error(`agent call answered ${res.status}`);
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
  console.log(`  agent, paid request only (prepared)    ${fmt(t.paid)}   ratio ${(median(t.paid) / median(t.v1)).toFixed(2)}x`);
  console.log(`  agent, full flow (402 + sign + paid)   ${fmt(t.agent)}   ratio ${(median(t.agent) / median(t.v1)).toFixed(2)}x`);
} finally {
  if (server) server.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 500));
  rmSync(state, { recursive: true, force: true });
}
