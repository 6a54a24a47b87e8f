// `npm run bench -- shards [--domains 300 --big 2000 --rounds 6 --seconds 5 --connections 8]`: the
// contact index on 1 D1 database against 4, under the same mixed load, then a reshard 1 → 4 under
// that load with a crash injected.
//
// Two `wrangler dev` servers (INDEX_SHARDS=1 and INDEX_SHARDS=4; BENCH_PORT and the next port, or
// free ones) each hold the same index: --domains domains of 10 addresses and one of --big, written
// with SQL into the database each domain's routing picks (src/db/shards.ts, bundled here). Rounds
// alternate the servers; each runs --seconds of load on --connections connections: 60 % domain
// searches on small domains, 10 % on the big one, 15 % email counts, 10 % company searches (every
// database), 5 % operator imports of 20 people on new domains (writes). Printed: requests per
// second, p50 per kind, the 4 / 1 ratios.
//
// Then, on the 1-database server under the same load, POST /operator/index/reshard {shards: 4} with
// a crash injected in the middle of a copy page (its first attempt fails; the workflow retries
// it): errors answered during the move (must be 0) and the rows of the index before (+ the rows
// the imports wrote during the move) against after (must be equal).
//
// No network: nothing is crawled (every domain is indexed as crawled), DNS is a stub here.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";
import { wrangler } from "../scripts/lib/local.mjs";
import { benchPort, devOperatorSecret, median, prepareBenchState, root, startDevServer } from "./lib/dev-server.mjs";
import { startDoh } from "./lib/doh-stub.mjs";

const { values: args } = parseArgs({
  options: {
    domains: { type: "string", default: "300" },
    big: { type: "string", default: "2000" },
    rounds: { type: "string", default: "6" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "8" },
  },
});
const DOMAINS = Number(args.domains);
const BIG = Number(args.big);
const ROUNDS = Number(args.rounds);
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const operatorSecret = devOperatorSecret();

/** The routing functions of the Worker, bundled for Node. */
async function routing() {
  const work = mkdtempSync(path.join(tmpdir(), "bench-shards-routing-"));
  const outfile = path.join(work, "routing.mjs");
  await esbuild.build({
    stdin: {
      contents: 'export { buildRing, indexBindings, ownerOf, shardKeyOf } from "./src/db/shards.ts";',
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "error",
    external: ["cloudflare:*"],
  });
  const mod = await import(outfile);
  rmSync(work, { recursive: true, force: true });
  return mod;
}

const q = (v) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`);

/** SQL for one crawled domain of `n` addresses (2 role addresses, the rest named people). */
function domainSql(domain, n, now) {
  const out = [
    `INSERT INTO domains (domain, crawl_status, crawled_at, pages_crawled, updated_at) VALUES (${q(domain)}, 'done', ${now}, 3, ${now});`,
    `INSERT INTO companies (domain, name, industry, keywords, source, updated_at) VALUES (${q(domain)}, ${q(`Bench ${domain}`)}, 'Benchmarking', '["bench"]', 'crawl', ${now});`,
  ];
  const emails = [];
  const sources = [];
  for (let i = 0; i < n; i++) {
    const role = i < 2;
    const local = role ? ["info", "sales"][i] : `person.${i}`;
    const email = `${local}@${domain}`;
    emails.push(
      `(${q(email)}, ${q(domain)}, ${q(local)}, ${q(role ? "generic" : "personal")}, ${role ? "NULL" : q("Person")}, ${role ? "NULL" : q(`N${i}`)}, 'crawl', ${now}, ${now})`,
    );
    sources.push(`(${q(email)}, ${q(`https://${domain}/team`)}, ${q(domain)}, ${now}, ${now}, 1)`);
  }
  for (let i = 0; i < emails.length; i += 200) {
    out.push(
      `INSERT INTO emails (email, domain, local_part, type, first_name, last_name, source, first_seen_at, last_seen_at) VALUES ${emails.slice(i, i + 200).join(", ")};`,
    );
    out.push(
      `INSERT INTO email_sources (email, uri, website_url, extracted_on, last_seen_on, still_on_page) VALUES ${sources.slice(i, i + 200).join(", ")};`,
    );
  }
  return out;
}

/** Writes the index into each state's databases, routed as the Worker routes it. */
function seed(state, shards, route) {
  const ring = route.buildRing(route.indexBindings(shards));
  const now = Date.now();
  const byDb = new Map();
  const all = [...Array.from({ length: DOMAINS }, (_, i) => [`bench-${i}.test`, 10]), ["big-bench.test", BIG]];
  for (const [domain, n] of all) {
    const name = route.ownerOf(ring, route.shardKeyOf(domain));
    byDb.set(name, [...(byDb.get(name) ?? []), ...domainSql(domain, n, now)]);
  }
  for (const [name, statements] of byDb) {
    const file = path.join(state, `seed-${name}.sql`);
    writeFileSync(file, statements.join("\n"));
    wrangler(["d1", "execute", name, "--local", "--file", file], { persistTo: state });
  }
}

let imported = 0;
/** One request of the mixed load: its kind and how it went. */
async function oneCall(server, rnd) {
  const x = rnd();
  const get = (p) => fetch(`${server.base}${p}`, { headers: server.headers });
  let kind;
  let res;
  const t = performance.now();
  if (x < 0.6) {
    kind = "domain search, 10 addresses";
    res = await get(`/v1/domain-search?domain=bench-${Math.floor(rnd() * DOMAINS)}.test&limit=10`);
  } else if (x < 0.7) {
    kind = `domain search, ${BIG} addresses`;
    res = await get("/v1/domain-search?domain=big-bench.test&limit=10");
  } else if (x < 0.85) {
    kind = "email count";
    res = await get(`/v1/email-count?domain=bench-${Math.floor(rnd() * DOMAINS)}.test`);
  } else if (x < 0.95) {
    kind = "company search (every database)";
    res = await fetch(`${server.base}/v1/reveal/search`, {
      method: "POST",
      headers: { ...server.headers, "content-type": "application/json" },
      body: JSON.stringify({ query: "bench", filters: { industry: { include: ["Benchmarking"] } }, limit: 10 }),
    });
  } else {
    kind = "import, 20 people on new domains";
    const batch = imported++;
    const rows = Array.from({ length: 20 }, (_, i) => ({
      kind: "person",
      domain: `new-${server.name}-${batch}-${i % 5}.test`,
      email: `p${i}@new-${server.name}-${batch}-${i % 5}.test`,
      first_name: "New",
      last_name: `P${i}`,
    }));
    res = await fetch(`${server.base}/operator/import`, {
      method: "POST",
      headers: { "X-Operator-Secret": operatorSecret, "content-type": "application/json" },
      body: JSON.stringify(rows),
    });
    if (res.ok) server.written += 40; // a people row and an emails row per person
  }
  await res.arrayBuffer();
  return { kind, ms: performance.now() - t, ok: res.ok, status: res.status };
}

/** The reveal route's own limit (5 a second per account, docs/storage.md): an answer, not a failure. */
const limited = (r) => r.status === 429 && r.kind.startsWith("company search");

/** `seconds` of load on `connections` connections; latencies by kind, errors, requests. */
async function load(server, seconds, seed, stop = () => false) {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  const until = Date.now() + seconds * 1000;
  const byKind = new Map();
  const errors = [];
  let n = 0;
  let rateLimited = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until && !stop()) {
        const r = await oneCall(server, rnd);
        n++;
        if (limited(r)) {
          rateLimited++;
          continue;
        }
        if (!r.ok) errors.push(`${r.kind}: ${r.status}`);
        byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r.ms]);
      }
    }),
  );
  return { n, byKind, errors, rateLimited };
}

async function rowsOf(server) {
  const res = await fetch(`${server.base}/operator/index/layout`, { headers: { "X-Operator-Secret": operatorSecret } });
  const { data } = await res.json();
  const total = Object.values(data.rows).reduce((sum, t) => sum + Object.values(t).reduce((a, b) => a + b, 0), 0);
  return { layout: data.current.join(","), total, rows: data.rows };
}

const route = await routing();
const doh = await startDoh();
const first = await benchPort();
// The second server's port: BENCH_PORT's next one, else a free port of its own (the one after a free
// port may be taken).
const ports = [first, process.env.BENCH_PORT ? first + 1 : await benchPort()];
const servers = [];
try {
  for (const [i, shards] of [1, 4].entries()) {
    const { state, headers } = prepareBenchState(`shards-${shards}`);
    process.stderr.write(`seeding ${DOMAINS} domains of 10 and one of ${BIG} for ${shards} database(s)…\n`);
    seed(state, shards, route);
    const server = await startDevServer({
      state,
      port: ports[i],
      vars: {
        INDEX_SHARDS: String(shards),
        OPERATOR_SECRET: operatorSecret,
        DOH_URL: `http://127.0.0.1:${doh.address().port}/dns-query`,
        MPP_SECRET_KEY: "bench-mpp-secret-key-0123456789abcdef-not-for-production",
      },
    });
    servers.push({ ...server, state, headers, shards, name: `s${shards}`, written: 0 });
  }

  // Warm both (first requests load route families, build drizzle, read the layout).
  for (const server of servers) await load(server, 1, 1);
  const totals = new Map(
    servers.map((s) => [s.shards, { n: 0, seconds: 0, byKind: new Map(), errors: [], rateLimited: 0 }]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...servers].reverse() : servers;
    for (const server of order) {
      const r = await load(server, SECONDS, 1000 + round);
      const t = totals.get(server.shards);
      t.n += r.n;
      t.seconds += SECONDS;
      t.errors.push(...r.errors);
      t.rateLimited += r.rateLimited;
      for (const [k, ms] of r.byKind) t.byKind.set(k, [...(t.byKind.get(k) ?? []), ...ms]);
    }
  }
  const one = totals.get(1);
  const four = totals.get(4);
  console.log(`\nMixed load, ${ROUNDS} rounds × ${SECONDS} s × ${CONNECTIONS} connections per layout (alternating):`);
  console.log("| | 1 database | 4 databases | 4 / 1 |");
  console.log("|---|---|---|---|");
  const rps = (t) => t.n / t.seconds;
  console.log(
    `| requests per second | ${rps(one).toFixed(1)} | ${rps(four).toFixed(1)} | ${(rps(four) / rps(one)).toFixed(2)} |`,
  );
  for (const kind of one.byKind.keys()) {
    const a = median(one.byKind.get(kind));
    const b = median(four.byKind.get(kind) ?? [NaN]);
    console.log(`| p50 ${kind} | ${a.toFixed(1)} ms | ${b.toFixed(1)} ms | ${(b / a).toFixed(2)} |`);
  }
  console.log(`| errors | ${one.errors.length} | ${four.errors.length} | |`);
  console.log(
    `| company searches refused by the reveal route's 5/s limit (429) | ${one.rateLimited} | ${four.rateLimited} | |`,
  );

  // Reshard 1 → 4 under load, a crash injected in copy page 1.
  const s1 = servers[0];
  const before = await rowsOf(s1);
  const writtenBefore = s1.written;
  const started = await fetch(`${s1.base}/operator/index/reshard`, {
    method: "POST",
    headers: { "X-Operator-Secret": operatorSecret, "content-type": "application/json" },
    body: JSON.stringify({ shards: 4, page_size: 50, settle_ms: 2000, crash: { page: 1, after_domains: 5 } }),
  });
  const { id } = (await started.json()).data;
  let status = "running";
  let move = null;
  const watcher = (async () => {
    const t0 = Date.now();
    while (status !== "complete" && status !== "errored" && Date.now() - t0 < 300_000) {
      await new Promise((r) => setTimeout(r, 500));
      const p = await (
        await fetch(`${s1.base}/operator/index/reshard/${id}`, { headers: { "X-Operator-Secret": operatorSecret } })
      ).json();
      status = p.data.workflow.status;
      move = p.data.move;
    }
  })();
  const t0 = Date.now();
  const during = await load(s1, 300, 7, () => status === "complete" || status === "errored");
  await watcher;
  const moveSeconds = (Date.now() - t0) / 1000;
  const after = await rowsOf(s1);
  const written = s1.written - writtenBefore;
  console.log(`\nReshard 1 → 4 under the same load (crash injected in copy page 1 after 5 domains):`);
  console.log(`| | |`);
  console.log(`|---|---|`);
  console.log(
    `| workflow | ${status}, ${moveSeconds.toFixed(1)} s, ${move?.domains_copied} domains copied, ${move?.rows_copied} rows, ${move?.steps_retried} step(s) retried |`,
  );
  console.log(
    `| requests answered during the move | ${during.n} (${during.rateLimited} company searches at the reveal route's 5/s limit) |`,
  );
  console.log(
    `| errors answered during the move | ${during.errors.length}${during.errors.length ? ` (${[...new Set(during.errors)].slice(0, 5).join("; ")})` : ""} |`,
  );
  console.log(
    `| index rows before (${before.layout}) + written during | ${before.total} + ${written} = ${before.total + written} |`,
  );
  console.log(
    `| index rows after (${after.layout}) | ${after.total} ${after.total === before.total + written ? "(equal)" : "(DIFFERENT)"} |`,
  );
  console.log(
    `| rows per database after | ${Object.entries(after.rows)
      .map(([k, v]) => `${k} ${Object.values(v).reduce((a, b) => a + b, 0)}`)
      .join(", ")} |`,
  );
  if (status !== "complete" || during.errors.length || after.total !== before.total + written) process.exitCode = 1;
} finally {
  for (const s of servers) {
    await s.stop();
    rmSync(s.state, { recursive: true, force: true });
  }
  doh.close();
}
