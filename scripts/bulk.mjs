// `npm run bulk -- <type> <file.csv> [--launch] [--name NAME] [--base-url URL] [--out FILE]`
// Uploads a CSV as a bulk job, and with --launch follows it with a live progress bar (rows/s, ETA)
// and downloads the result CSV when it ends, into bulk-results/ (ignored by git) unless --out says.
// Credentials: --key/--secret, SERVICE_KEY/SERVICE_SECRET, or the demo account `npm start` created (.wrangler/demo-credentials.json).
import { existsSync, mkdirSync, openAsBlob, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { localConfigOrExit } from "./lib/config.mjs";
import { demoCredentialsFile } from "./lib/local.mjs";

const config = localConfigOrExit();

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    launch: { type: "boolean", default: false },
    name: { type: "string" },
    "base-url": { type: "string", default: config.baseUrl },
    key: { type: "string", default: process.env.SERVICE_KEY },
    secret: { type: "string", default: process.env.SERVICE_SECRET },
    out: { type: "string" },
    file: { type: "string", default: "full" },
    plan: { type: "string", default: "pro" },
  },
});
const [type, file] = positionals;
if (!type || !file) {
  console.error(
    "usage: npm run bulk -- <type> <file.csv> [--launch] [--name NAME] [--base-url URL] [--out FILE] [--file full|valid|not_found]",
  );
  process.exit(2);
}
let { key, secret } = values;
if (!key || !secret) {
  const creds = existsSync(demoCredentialsFile)
    ? JSON.parse(readFileSync(demoCredentialsFile, "utf8"))[values.plan]
    : undefined;
  if (!creds) {
    console.error("No credentials: pass --key and --secret (or SERVICE_KEY/SERVICE_SECRET), or run `npm start` once.");
    process.exit(2);
  }
  ({ key, secret } = creds);
}
const base = values["base-url"].replace(/\/$/, "");
const headers = { "X-Service-Key": key, "X-Service-Secret": secret };

async function api(method, p, body) {
  const res = await fetch(`${base}/v1${p}`, { method, headers, body });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = { raw: text };
  }
  if (!res.ok) {
    console.error(`\n${method} /v1${p} -> ${res.status}: ${json.errors?.message ?? text}`);
    process.exit(1);
  }
  return json;
}

const form = new FormData();
form.append("name", values.name ?? path.basename(file, path.extname(file)).padEnd(3, "_"));
form.append("file", await openAsBlob(file, { type: "text/csv" }), path.basename(file));
if (values.launch) form.append("launch", "true");
const created = await api("POST", `/bulk/${type}`, form);
const id = created.data.id;
console.log(`Created ${type} job ${id}${created.data.message ? `: ${created.data.message}` : ""}`);
const { data: job } = await api("GET", `/bulk/${type}/${id}`);
const m = job.metrics.rows;
console.log(
  `  ${m.input} rows (${m.valid_input} to run, ${m.invalid_input} invalid, ${m.skipped} skipped, ${m.duplicates} duplicates); columns ${JSON.stringify(job.config.input.fields)}`,
);
/** Rows by what became of them, from the job's distribution: "found 3, blank 1, refused (webmail_domain) 1". */
const breakdown = (metrics) => metrics.distribution.rows.map((b) => `${b.label.toLowerCase()} ${b.count}`).join(", ");
if (!values.launch) {
  console.log(
    `Launch it with: curl -X PUT ${base}/v1/bulk/${type}/${id} -H 'X-Service-Key: ...' -H 'X-Service-Secret: ...'`,
  );
  process.exit(0);
}

const width = 30;
const tty = process.stdout.isTTY;
let last = "";
for (;;) {
  const p = await api("GET", `/bulk/${type}/${id}/progress`);
  const filled = Math.round((p.progress / 100) * width);
  const eta = p.eta_seconds === null ? "--" : `${p.eta_seconds}s`;
  const r = p.metrics.rows;
  const line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(p.progress).padStart(3)}%  ${p.processed}/${p.total} rows  ${r.processed} run, ${r.errors} failed, ${r.invalid_input} invalid, ${r.duplicates} duplicates, ${r.skipped} skipped  ${p.rows_per_second.toFixed(1)} rows/s  ETA ${eta}  ${p.state}`;
  if (tty) process.stdout.write(`\r${line}`);
  else if (line !== last) console.log(line);
  last = line;
  if (p.state !== "running" && p.state !== "pending") break;
  await new Promise((r) => setTimeout(r, 500));
}
if (tty) process.stdout.write("\n");
const { data: done } = await api("GET", `/bulk/${type}/${id}`);
if (done.status !== "completed") {
  console.error(`Job ${done.status}${done.error_message ? `: ${done.error_message}` : ""}`);
  if (done.processed === 0) process.exit(1);
}
const r = done.metrics.results;
const rows = done.metrics.rows;
console.log(
  `Found ${r.found}, not found ${r.not_found} (hit rate ${r.hit_rate}%), credits ${done.metrics.credits.total}`,
);
console.log(
  `Rows: ${rows.input} read = ${rows.processed} run + ${rows.errors} failed + ${rows.invalid_input} invalid + ${rows.duplicates} duplicates + ${rows.skipped} skipped`,
);
if (done.metrics.distribution.rows.length) console.log(`  ${breakdown(done.metrics)}`);
if (done.summary) console.log(`Summary: ${done.summary}`);
const res = await fetch(`${base}/v1/bulk/${type}/${id}/download?file=${values.file}`, { headers });
if (!res.ok) {
  console.error(`download -> ${res.status}: ${await res.text()}`);
  process.exit(1);
}
const out =
  values.out ??
  path.join("bulk-results", `${path.basename(file, path.extname(file))}-${type}-${id}-${values.file}.csv`);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, Buffer.from(await res.arrayBuffer()));
console.log(`Saved ${out}`);
