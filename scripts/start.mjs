// `npm start`: prepares the local database, seeds a demo account, prints its credentials and serves
// the API with `wrangler dev` on http://localhost:$PORT (default 8787). Without internet it says
// so in one line per upstream it cannot reach, instead of the stack traces wrangler and workerd
// print, and the server works for everything that needs no outside service. wrangler's output goes
// through createOutputFilter (scripts/lib/offline.mjs): mailed links stand out, request lines are
// quieter, the bindings table is shown once (docs/scripts.md, "npm start").
import { spawn } from "node:child_process";
import { lookup } from "node:dns/promises";
import { localConfigOrExit } from "./lib/config.mjs";
import { ensureDevVars, persistTo, root, wranglerBin } from "./lib/local.mjs";
import { createOutputFilter, missingUpstreams, offlineLine, upstreams } from "./lib/offline.mjs";
import { DEMO_PASSWORD, seed } from "./seed.mjs";

const config = localConfigOrExit();
const port = String(config.port);
const started = Date.now();
const devVars = ensureDevVars();
let creds;
try {
  creds = seed(process.env.DEMO_PLAN ?? "pro");
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
const base = `http://localhost:${port}`;

// DOH_URL from the shell wins over .dev.vars, as for the Worker (passed with --var below).
const dohUrl = process.env.DOH_URL || devVars.DOH_URL;
const missing = await missingUpstreams(upstreams(dohUrl), (host) => lookup(host));
const childEnv = { ...process.env, WRANGLER_SEND_METRICS: "false" };
for (const u of missing) Object.assign(childEnv, u.env ?? {});

console.log(`
  Contact Intelligence is starting on ${base}

  Demo account: ${creds.email}
    X-Service-Key:    ${creds.key}
    X-Service-Secret: ${creds.secret}

  Try:
    curl -s ${base}/v1/me -H 'X-Service-Key: ${creds.key}' -H 'X-Service-Secret: ${creds.secret}'

  Dashboard: ${base}/app
    sign in as ${creds.email} with the password ${DEMO_PASSWORD}, or create an account;
    the links a real server would mail (confirmation, password reset, team invitation, new address)
    are printed here as a framed ✉ block; open the link in the browser.

  (database ready in ${((Date.now() - started) / 1000).toFixed(1)} s; Ctrl+C stops the server)
`);
for (const u of missing) console.log(offlineLine(u));

// wrangler.toml sets no ENVIRONMENT (unset is production); the local server is development.
const args = [wranglerBin, "dev", "--port", port, "--ip", "127.0.0.1", "--var", "ENVIRONMENT:development"];
if (persistTo) args.push("--persist-to", persistTo);
if (process.env.DOH_URL) args.push("--var", `DOH_URL:${process.env.DOH_URL}`);
// The contact index runs on 4 local databases; INDEX_SHARDS=1 npm start keeps it in DB (as deployed:
// wrangler.toml says 1 until an operator reshards).
args.push("--var", `INDEX_SHARDS:${process.env.INDEX_SHARDS || "4"}`);
// Arguments after `npm start --` go to wrangler dev (e.g. `-- --inspector-port 9310`).
args.push(...process.argv.slice(2));
const child = spawn(process.execPath, args, { cwd: root, stdio: ["inherit", "pipe", "pipe"], env: childEnv });
// One filter for both streams: a report can start on one and its stack follow on the other.
const filter = createOutputFilter({ color: Boolean(process.stdout.isTTY) });
child.stdout.on("data", (d) => process.stdout.write(filter.push(String(d))));
child.stderr.on("data", (d) => process.stdout.write(filter.push(String(d))));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code) => {
  process.stdout.write(filter.end());
  process.exit(code ?? 0);
});
