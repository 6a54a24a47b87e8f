// `npm run bench -- scale [--sizes 1000,1000000 --rounds 40 --big 10000]`: how the contact index's
// hot-path queries behave as the index grows.
//
// One throwaway `wrangler dev` per size, each with its own state directory holding a synthetic index
// of that many addresses (scripts/seed-scale.mjs) plus the same two measured domains:
// small-scale.test (10 addresses) and big-scale.test (--big, 10,000). On each domain, over HTTP:
// domain search (first page and last page, 10 per page), email finder (a person whose address the
// domain publishes) and email count; rounds alternate the sizes and the order of the calls, so the
// machine's noise falls on every size alike. Prints the median (p50) per call and size and the
// ratio of the largest size to the smallest.
//
// The 30-day repeat lookup runs inside the account's limiter (its `repeat_windows` table) and cannot
// be seen over HTTP, so it is timed on its own (bench/lib/repeat-lookup.mjs): `RepeatWindows`
// (src/limits/repeat-windows.ts) makes its table in SQLite (node:sqlite) and its `find` statement is
// timed on a table holding one tenth of each size as windows of one account (seed-scale opens a
// window per 10 addresses; in one account's limiter that is the worst case), for windows that exist
// and ones that do not.
//
// Writes: people imported through POST /operator/import (each writes a `people` and an `emails` row,
// in D1 batches) on new domains, 2,000 people per request, --write-rounds requests per size; the
// figure is rows written per second of request time.
//
// No network: every domain is in the index (nothing is crawled) and DNS (the finder verifies its
// answer) comes from a stub DNS-over-HTTPS server in this process.
import { parseArgs } from "node:util";
import { addressOf, BIG_DOMAIN, d1File, PER_DOMAIN, SMALL_DOMAIN, seedScale } from "../scripts/seed-scale.mjs";
import { devOperatorSecret, median, withBenchServer } from "./lib/dev-server.mjs";
import { startDoh } from "./lib/doh-stub.mjs";
import { repeatWindowsClass, timeRepeatLookup } from "./lib/repeat-lookup.mjs";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,1000000" },
    rounds: { type: "string", default: "40" },
    big: { type: "string", default: "10000" },
    "write-rounds": { type: "string", default: "4" },
  },
});
const sizes = args.sizes.split(",").map(Number);
const rounds = Number(args.rounds);
const big = Number(args.big);
const writeRounds = Number(args["write-rounds"]);
const operatorSecret = devOperatorSecret();
const IMPORT_PEOPLE = 2_000;
if (sizes.some((n) => !Number.isInteger(n) || n < 0) || !(rounds > 0) || !(big >= 10))
  throw new Error("--sizes n,m --rounds r --big b");

const label = (n) => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n));

/** Starts one server per size (nested), each on its own seeded state. */
async function withServers(vars, body, i = 0, servers = []) {
  if (i === sizes.length) return body(servers);
  const emails = sizes[i];
  return withBenchServer(
    `scale-${label(emails)}`,
    vars,
    (server) => withServers(vars, body, i + 1, [...servers, { ...server, emails }]),
    {
      ownPorts: true,
      prepare: (state) => {
        const started = Date.now();
        const counts = seedScale(d1File(state), { emails, big });
        console.log(
          `${label(emails)}: seeded ${counts.emails} addresses, ${counts.sources} sources, ${counts.people} people in ${((Date.now() - started) / 1000).toFixed(0)} s`,
        );
      },
    },
  );
}

const doh = await startDoh();
const RepeatWindows = await repeatWindowsClass();
try {
  await withServers(
    // seed:scale writes its index into the main database's file: the server keeps the index there.
    { DOH_URL: `http://127.0.0.1:${doh.address().port}/dns-query`, OPERATOR_SECRET: operatorSecret, INDEX_SHARDS: "1" },
    async (servers) => {
      const person = (domain, size) => addressOf(domain, Math.floor(size / 2));
      const calls = [];
      for (const [domain, size] of [
        [SMALL_DOMAIN, PER_DOMAIN],
        [BIG_DOMAIN, big],
      ]) {
        const who = person(domain, size);
        calls.push({
          name: "domain search, first page",
          domain,
          path: () => `/v1/domain-search?domain=${domain}&limit=10`,
        });
        calls.push({
          name: "domain search, last page",
          domain,
          path: (s) => `/v1/domain-search?domain=${domain}&limit=10&page=${s.lastPage[domain]}`,
        });
        calls.push({
          name: "email finder",
          domain,
          path: () => `/v1/email-finder?domain=${domain}&first_name=${who.first}&last_name=${who.last}`,
        });
        calls.push({ name: "email count", domain, path: () => `/v1/email-count?domain=${domain}` });
      }
      const get = async (server, url) => {
        const start = performance.now();
        const res = await fetch(`${server.base}${url}`, { headers: server.headers });
        const body = await res.text();
        const ms = performance.now() - start;
        if (res.status !== 200)
          throw new Error(`${url} on ${label(server.emails)} answered ${res.status}: ${body.slice(0, 300)}`);
        return { ms, body };
      };
      for (const s of servers) {
        s.lastPage = {};
        for (const domain of [SMALL_DOMAIN, BIG_DOMAIN])
          s.lastPage[domain] = Math.max(
            1,
            JSON.parse((await get(s, `/v1/domain-search?domain=${domain}&limit=10`)).body).meta.total_pages,
          );
        s.t = Object.fromEntries(calls.map((c) => [`${c.name}|${c.domain}`, []]));
        for (let i = 0; i < 3; i++) for (const c of calls) await get(s, c.path(s)); // warm the isolate, DNS cache and D1 pages
      }
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 ? [...calls].reverse() : calls;
        for (const c of order) {
          for (const s of r % 2 ? [...servers].reverse() : servers)
            s.t[`${c.name}|${c.domain}`].push((await get(s, c.path(s))).ms);
        }
      }

      const first = servers[0];
      const last = servers.at(-1);
      const rows = calls.map((c) => {
        const key = `${c.name}|${c.domain}`;
        const row = { call: c.name, domain: c.domain };
        for (const s of servers) row[`p50 ms @${label(s.emails)}`] = median(s.t[key]).toFixed(1);
        row[`${label(last.emails)}/${label(first.emails)}`] = (median(last.t[key]) / median(first.t[key])).toFixed(2);
        return row;
      });
      // Writes: the same import on every size, alternated.
      for (let r = 0; r < writeRounds; r++) {
        for (const s of r % 2 ? [...servers].reverse() : servers) {
          const rows = Array.from({ length: IMPORT_PEOPLE }, (_, i) => {
            const domain = `w${r}-${Math.floor(i / PER_DOMAIN)}-scale.test`;
            const a = addressOf(domain, 2 + (i % PER_DOMAIN));
            return {
              kind: "person",
              email: `${a.local}@${domain}`,
              first_name: a.first,
              last_name: a.last,
              position: a.position[0],
              country: "FR",
            };
          });
          const start = performance.now();
          const res = await fetch(`${s.base}/operator/import`, {
            method: "POST",
            headers: { "content-type": "application/json", "X-Operator-Secret": operatorSecret },
            body: JSON.stringify(rows),
          });
          const report = await res.text();
          if (res.status !== 200)
            throw new Error(`import on ${label(s.emails)} answered ${res.status}: ${report.slice(0, 300)}`);
          s.writes ??= [];
          s.writes.push((2 * IMPORT_PEOPLE) / ((performance.now() - start) / 1000));
        }
      }
      if (writeRounds > 0) {
        const row = { call: `import ${IMPORT_PEOPLE} people (rows written/s)`, domain: "(new domains)" };
        for (const s of servers) row[`p50 ms @${label(s.emails)}`] = median(s.writes).toFixed(0);
        row[`${label(last.emails)}/${label(first.emails)}`] = (median(first.writes) / median(last.writes)).toFixed(2);
        rows.push(row);
      }
      const lookups = servers.map((s) => ({
        s,
        windows: Math.floor((s.emails + PER_DOMAIN + big) / 10),
        ...timeRepeatLookup(RepeatWindows, Math.floor((s.emails + PER_DOMAIN + big) / 10)),
      }));
      for (const kind of ["hit", "miss"]) {
        const row = {
          call: `30-day repeat lookup (${kind === "hit" ? "window open" : "no window"})`,
          domain: "(a limiter's repeat_windows)",
        };
        for (const l of lookups) row[`p50 ms @${label(l.s.emails)}`] = l[kind].toFixed(3);
        row[`${label(last.emails)}/${label(first.emails)}`] = (lookups.at(-1)[kind] / lookups[0][kind]).toFixed(2);
        rows.push(row);
      }
      console.log(
        `\nHot-path calls over HTTP (${rounds} rounds, sizes alternated), p50 per call; background index of ${sizes.map(label).join(" / ")} addresses plus the two measured domains (${PER_DOMAIN} and ${big} addresses).`,
      );
      console.log(
        `30-day lookup: the statement RepeatWindows.find runs, in SQLite on one account's window table of ${lookups.map((l) => l.windows).join(" / ")} windows (${lookups[0].hits} open windows found among 2,000 asked).\n`,
      );
      console.table(rows);
      console.log(`lookup statement: ${lookups[0].sql}`);
      console.log(
        "The import row shows rows written per second (median) in the p50 columns; its ratio is time per row, largest size over smallest.",
      );
    },
  );
} finally {
  doh.close();
}
