// npm run bench -- mcp — a tool call on /v1/mcp against the same call on its /v1 endpoint, side by side
// in one run, over real HTTP against a throwaway `wrangler dev` (bench/lib/dev-server.mjs: a free
// port or BENCH_PORT, its own state directory, a scale-plan account with a key; stopped at the end).
//
// Capability: phone-validator (no outbound network), with a new number on every call so each call
// is billed (a credit reservation and settlement, not the free 30-day repeat). Per round, in
// alternating order:
//   /v1         GET /v1/phone-validator?phone=…                    (key + secret)
//   mcp         POST /v1/mcp tools/call phone-validator {phone}    (key + secret; one JSON-RPC
//               request, what a connected client sends per call)
//   mcp client  the official SDK client's callTool over its Streamable HTTP transport (adds the
//               client's own work: request building, result and output-schema validation)
//   /v1 repeat, mcp repeat  the same number every call (a free 30-day repeat: the lightest path)
// Also printed: the first MCP request after start (it loads the MCP code) against the next ones.
//   BENCH_ROUNDS  paired rounds (default 200)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { median, p90, withBenchServer } from "./lib/dev-server.mjs";

const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const GOAL = 1.2;

// French mobile numbers +336 followed by 8 digits, a different one per call across the whole run.
let nextNumber = 20_000_000;
const REPEATED = "+33612345678";
const newNumber = () => `+336${String(nextNumber++ % 100_000_000).padStart(8, "0")}`;

await withBenchServer("mcp", { AGENTS_PLAN: "scale" }, async ({ base, port, headers }) => {
  const mcpHeaders = {
    ...headers,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  let id = 0;
  const rpc = async (method, params) => {
    const res = await fetch(`${base}/v1/mcp`, {
      method: "POST",
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const body = await res.json();
    if (res.status !== 200 || body.error || body.result?.isError)
      throw new Error(`/v1/mcp ${method} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    return body.result;
  };

  // The first MCP request of this server's isolate loads the MCP SDK (dynamic import).
  let start = performance.now();
  await rpc("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  });
  const firstMcp = performance.now() - start;
  start = performance.now();
  await rpc("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  });
  const secondMcp = performance.now() - start;

  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/v1/mcp`), { requestInit: { headers } }));
  await client.listTools(); // the client caches the output schemas it validates answers with

  const calls = {
    "/v1": async () => {
      const res = await fetch(`${base}/v1/phone-validator?phone=${encodeURIComponent(newNumber())}`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/v1 answered ${res.status}`);
    },
    mcp: () => rpc("tools/call", { name: "phone-validator", arguments: { phone: newNumber() } }),
    // The same number every time: after its first call a free 30-day repeat (no credit taken),
    // the lightest billed-path answer, where the MCP layer's own cost shows most.
    "/v1 repeat": async () => {
      const res = await fetch(`${base}/v1/phone-validator?phone=${encodeURIComponent(REPEATED)}`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/v1 answered ${res.status}`);
    },
    "mcp repeat": () => rpc("tools/call", { name: "phone-validator", arguments: { phone: REPEATED } }),
    "mcp client": async () => {
      const result = await client.callTool({ name: "phone-validator", arguments: { phone: newNumber() } });
      if (result.isError) throw new Error(`client call failed: ${JSON.stringify(result).slice(0, 300)}`);
    },
  };
  const names = Object.keys(calls);
  for (let i = 0; i < 20; i++) for (const name of names) await calls[name]();

  const t = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 ? names : [...names].reverse();
    for (const name of order) {
      const s = performance.now();
      await calls[name]();
      t[name].push(performance.now() - s);
    }
  }
  await client.close();

  const base50 = median(t["/v1"]);
  console.log(`\nwrangler dev on :${port}, ${rounds} paired rounds, phone-validator (billed: a new number per call)`);
  console.log("call          p50 ms   p90 ms   p50 ratio to /v1 (new number)");
  for (const name of names) {
    console.log(
      `${name.padEnd(12)} ${median(t[name]).toFixed(2).padStart(7)} ${p90(t[name]).toFixed(2).padStart(8)}   ${(median(t[name]) / base50).toFixed(2)}x`,
    );
  }
  console.log(
    `\nfirst MCP request (loads the MCP code): ${firstMcp.toFixed(1)} ms; the next one: ${secondMcp.toFixed(1)} ms`,
  );
  const ratio = median(t.mcp) / base50;
  const repeatRatio = median(t["mcp repeat"]) / median(t["/v1 repeat"]);
  console.log(`repeat (free) call: mcp ${repeatRatio.toFixed(2)}x /v1`);
  console.log(
    `goal: a tool call's p50 <= ${GOAL}x the same /v1 call: ${ratio.toFixed(2)}x ${ratio <= GOAL ? "met" : "NOT met"}`,
  );
});
