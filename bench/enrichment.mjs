// npm run bench:enrichment — enrichment latency on a warm contact index, against a bare /v1/me
// measured side by side in the same run, over real HTTP against `wrangler dev`.
//
// It starts its own `wrangler dev` on BENCH_PORT (default: a free port, never 8787) with a throwaway state
// directory, applies migrations, creates a scale-plan account (no rate limits), imports a generated
// index through POST /operator/import (BENCH_PEOPLE people over BENCH_COMPANIES companies, every
// person with a number), warms it, then runs paired rounds in alternating order. No outbound
// network is needed: every company is in the index, so nothing is fetched from a site.
//   BENCH_ROUNDS     paired rounds (default 200)
//   BENCH_PEOPLE     people in the index (default 5000)
//   BENCH_COMPANIES  companies in the index (default 500)
import { spawn, spawnSync } from "node:child_process";
import { createHash, pbkdf2Sync, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const wranglerBin = path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
// A port nobody listens on (another dev server on a fixed port would silently answer instead).
const freePort = () =>
  new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
const port = Number(process.env.BENCH_PORT ?? (await freePort()));
if (port === 8787) throw new Error("BENCH_PORT 8787 is reserved for `npm start`.");
const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const peopleCount = Number(process.env.BENCH_PEOPLE ?? 5000);
const companyCount = Number(process.env.BENCH_COMPANIES ?? 500);
const state = mkdtempSync(path.join(tmpdir(), "bench-enrich-"));
const base = `http://127.0.0.1:${port}`;
// wrangler dev lets .dev.vars win over --var, so use its operator secret when it has one.
const devVars = existsSync(path.join(root, ".dev.vars")) ? readFileSync(path.join(root, ".dev.vars"), "utf8") : "";
const operatorSecret = /^OPERATOR_SECRET=(.*)$/m.exec(devVars)?.[1] ?? randomBytes(24).toString("base64url");

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

// Synthetic but well-formed rows (reserved .test names); the bench measures lookups, not content.
const INDUSTRIES = ["Computer Software", "Internet", "Financial Services", "Restaurants", "Research"];
const SENIORITY = ["junior", "senior", "executive"];
function dataset() {
  const rows = [];
  for (let c = 0; c < companyCount; c++) {
    rows.push({ kind: "company", domain: `co${c}.bench.test`, name: `Company ${c}`, industry: INDUSTRIES[c % INDUSTRIES.length], country: c % 3 ? "US" : "FR",
      city: c % 2 ? "Austin" : "Paris", keywords: [`k${c % 17}`, `k${c % 23}`], technologies: [`t${c % 11}`] });
  }
  for (let p = 0; p < peopleCount; p++) {
    const c = p % companyCount;
    rows.push({ kind: "person", email: `person${p}@co${c}.bench.test`, first_name: `First${p}`, last_name: `Last${p}`, position: "Engineer",
      seniority: SENIORITY[p % 3], country: p % 4 ? "US" : "FR", linkedin: `https://www.linkedin.com/in/bench-person-${p}`,
      phone: `+3361234${String(p % 10000).padStart(4, "0")}` });
  }
  return rows;
}

let server;
try {
  wrangler(["d1", "migrations", "apply", "DB", "--local"]);
  const key = `ck_${randomBytes(18).toString("base64url")}`;
  const secret = `cs_${randomBytes(32).toString("base64url")}`;
  const sha = createHash("sha256").update(secret).digest("hex");
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
      "--var", `OPERATOR_SECRET:${operatorSecret}`, "--var", `MPP_SECRET_KEY:${randomBytes(32).toString("base64url")}`, "--var", "ENVIRONMENT:development"],
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

  const rows = dataset();
  const importStart = performance.now();
  const imported = await fetch(`${base}/operator/import`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-Operator-Secret": operatorSecret },
    body: JSON.stringify(rows),
  });
  const report = await imported.json();
  if (imported.status !== 200 || report.rejected) throw new Error(`import failed: ${imported.status} ${JSON.stringify(report).slice(0, 500)}`);
  const importMs = performance.now() - importStart;

  const headers = { "X-Service-Key": key, "X-Service-Secret": secret };
  let n = 0;
  const pick = () => {
    const p = (n++ * 7919) % peopleCount; // spread over the index
    return { email: `person${p}@co${p % companyCount}.bench.test`, domain: `co${p % companyCount}.bench.test`, profile: `https://www.linkedin.com/in/bench-person-${p}` };
  };
  const calls = {
    "/v1/me (baseline)": () => "/v1/me",
    "/v1/enrich": () => `/v1/enrich?email=${pick().email}`,
    "/v1/enrich?enrich_mobile=true": () => `/v1/enrich?email=${pick().email}&enrich_mobile=true`,
    "/v1/combined/find": () => `/v1/combined/find?email=${pick().email}`,
    "/v1/people/find?domain": () => `/v1/people/find?domain=${pick().domain}`,
    "/v1/professional-network": () => `/v1/professional-network?url=${encodeURIComponent(pick().profile)}`,
    "/v1/enrich (unknown address)": () => `/v1/enrich?email=nobody${n++}@co1.bench.test`,
  };
  const run = async (name) => {
    const res = await fetch(`${base}${calls[name]()}`, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${body.slice(0, 300)}`);
  };
  const names = Object.keys(calls);
  for (let i = 0; i < 20; i++) for (const name of names) await run(name); // warm the isolate and D1 pages
  const t = Object.fromEntries(names.map((k) => [k, []]));
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 ? names : [...names].reverse();
    for (const name of order) {
      const start = performance.now();
      await run(name);
      t[name].push(performance.now() - start);
    }
  }
  const baseline = median(t[names[0]]);
  console.log(`\nindex: ${peopleCount} people, ${companyCount} companies (imported in ${(importMs / 1000).toFixed(1)} s through POST /operator/import)`);
  console.log(`${rounds} paired rounds against wrangler dev on :${port}\n`);
  for (const name of names) {
    console.log(`  ${name.padEnd(32)} median ${median(t[name]).toFixed(2)} ms, p90 ${p90(t[name]).toFixed(2)} ms   ratio ${(median(t[name]) / baseline).toFixed(2)}x`);
  }
} finally {
  if (server) server.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 500));
  rmSync(state, { recursive: true, force: true });
}
