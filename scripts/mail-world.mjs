// `npm run mail-world`: a local mail world for trying the SMTP search offline. It serves, on
// http://127.0.0.1:$MAIL_WORLD_PORT (default 8025):
//   - POST /v1/check_email: a fake prober speaking Reacher's API (its exact JSON, built by
//     test/fixtures/mail-world/reacher-json.ts) over the example domains below;
//   - GET /dns-query: DNS over HTTPS (JSON) with their MX records (other names are asked of
//     cloudflare-dns.com when it can be reached, else SERVFAIL);
// and marks the example domains as crawled in the local database (their quiet sites: people listed,
// only info@), so the finder goes straight to the SMTP search. Then start the server with the
// command it prints, and ask the finder for a listed person.
import { createServer } from "node:http";
import { reacherOutput, SMTP_REPLIES } from "../test/fixtures/mail-world/reacher-json.ts";
import { applyMigrations, d1, sqlText } from "./lib/local.mjs";

const port = Number(process.env.MAIL_WORLD_PORT ?? 8025);
const secret = process.env.MAIL_WORLD_SECRET ?? "";

/** The example world: who has a mailbox, and how each server answers. */
export const LOCAL_WORLD = [
  {
    domain: "northwind-mw.example",
    company: "Northwind Traders",
    mx: ["aspmx.l.google.com"],
    behaviour: "normal",
    mailboxes: { "jane.cooper": "active", "tom.baker": "active", "li.wei": "full", info: "active" },
    people: ["Jane Cooper", "Tom Baker", "Li Wei"],
  },
  {
    domain: "alpenblick-mw.example",
    company: "Alpenblick Hotels",
    mx: ["alpenblick-mw-example.mail.protection.outlook.com"],
    behaviour: "accept_all",
    mailboxes: { jmueller: "active", info: "active" },
    people: ["Jürgen Müller"],
  },
  {
    domain: "kestrel-mw.example",
    company: "Kestrel Logistics",
    mx: ["mail.kestrel-mw.example"],
    behaviour: "greylisting",
    greylistSeconds: 60,
    mailboxes: { sgarcia: "active", pnowak: "disabled", info: "active" },
    people: ["Sofia García", "Piotr Nowak"],
  },
];

const firstContact = new Map();

function outcomeFor(world, local) {
  if (world.behaviour === "greylisting") {
    const first = firstContact.get(world.domain) ?? Date.now();
    firstContact.set(world.domain, first);
    if (Date.now() < first + world.greylistSeconds * 1000)
      return { kind: "smtp_error", message: SMTP_REPLIES.greylisted[0] };
  }
  if (world.behaviour === "accept_all") return { kind: "catch_all" };
  const state = world.mailboxes[local];
  if (state === "active") return { kind: "deliverable" };
  if (state === "full") return { kind: "full_inbox" };
  if (state === "disabled") return { kind: "disabled" };
  return { kind: "not_found" };
}

function send(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readJson(req) {
  let text = "";
  for await (const chunk of req) text += chunk;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function dnsQuery(url, res) {
  const name = (url.searchParams.get("name") ?? "").toLowerCase().replace(/\.$/, "");
  const type = (url.searchParams.get("type") ?? "A").toUpperCase();
  const world = LOCAL_WORLD.find((w) => w.domain === name);
  if (world) {
    const Answer =
      type === "MX"
        ? world.mx.map((h, i) => ({ name: `${name}.`, type: 15, TTL: 300, data: `${(i + 1) * 10} ${h}.` }))
        : type === "A"
          ? [{ name: `${name}.`, type: 1, TTL: 300, data: "192.0.2.25" }]
          : [];
    return send(res, 200, { Status: 0, Question: [{ name: `${name}.`, type: type === "MX" ? 15 : 1 }], Answer });
  }
  try {
    const upstream = await fetch(`https://cloudflare-dns.com/dns-query${url.search}`, {
      headers: { accept: "application/dns-json" },
      signal: AbortSignal.timeout(3000),
    });
    return send(res, upstream.status, await upstream.json());
  } catch {
    return send(res, 200, { Status: 2, Question: [{ name: `${name}.`, type: 1 }] });
  }
}

async function handle(req, res) {
  const url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`);
  if (req.method === "GET" && url.pathname === "/dns-query") return dnsQuery(url, res);
  if (req.method !== "POST" || url.pathname !== "/v1/check_email") return send(res, 404, { error: "not found" });
  if (secret && req.headers["x-reacher-secret"] !== secret) return send(res, 401, { error: "Invalid secret" });
  const body = await readJson(req);
  if (!body || typeof body.to_email !== "string" || !body.to_email)
    return send(res, 400, { error: "to_email field is required." });
  const email = body.to_email.toLowerCase();
  const at = email.lastIndexOf("@");
  const world = LOCAL_WORLD.find((w) => w.domain === email.slice(at + 1));
  const local = email.slice(0, at);
  const outcome = world ? outcomeFor(world, local) : { kind: "timeout", seconds: 10 };
  console.log(`[mail-world] check ${email}: ${outcome.kind}`);
  return send(
    res,
    200,
    reacherOutput(
      email,
      outcome,
      (world?.mx ?? []).map((h) => `${h}.`),
      local === "info",
    ),
  );
}

/** Marks the example domains as crawled (names shown, only info@), so the finder needs no site. */
function seedLocalIndex() {
  applyMigrations();
  const now = Date.now();
  const statements = LOCAL_WORLD.flatMap((w) => [
    `INSERT INTO domains (domain, crawl_status, crawled_at, pages_crawled, updated_at) VALUES (${sqlText(w.domain)}, 'done', ${now}, 3, ${now})
     ON CONFLICT(domain) DO UPDATE SET crawl_status = 'done', crawled_at = ${now}`,
    `INSERT OR IGNORE INTO companies (domain, name) VALUES (${sqlText(w.domain)}, ${sqlText(w.company)})`,
    `INSERT OR IGNORE INTO emails (email, domain, local_part, type, source, first_seen_at, last_seen_at)
     VALUES (${sqlText(`info@${w.domain}`)}, ${sqlText(w.domain)}, 'info', 'generic', 'crawl', ${now}, ${now})`,
  ]);
  d1(statements.join(";\n"));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  seedLocalIndex();
  createServer((req, res) => {
    handle(req, res).catch((err) => send(res, 500, { error: String(err) }));
  }).listen(port, "127.0.0.1", () => {
    const base = `http://127.0.0.1:${port}`;
    const person = LOCAL_WORLD[0].people[0].split(" ");
    console.log(`
  Local mail world on ${base}: a fake prober speaking Reacher's API and DNS for
  ${LOCAL_WORLD.map((w) => `${w.domain} (${w.behaviour})`).join(", ")}.

  In another terminal, start the server with it:
    DOH_URL=${base}/dns-query npm start -- --var REACHER_URL:${base}/ --var SMTP_RETRY_SECONDS:70,120${secret ? ` --var REACHER_SECRET:${secret}` : ""}
  (SMTP_RETRY_SECONDS makes the background retry of a greylisted check come after 70 s instead of
  5 minutes: ask for Sofia García twice, a minute and a half apart.)

  Then ask the finder for a listed person (the demo key and secret are printed by npm start):
    curl -s 'http://localhost:8787/v1/email-finder?domain=${LOCAL_WORLD[0].domain}&first_name=${person[0]}&last_name=${person[1]}' -H 'X-Service-Key: …' -H 'X-Service-Secret: …'

  People: ${LOCAL_WORLD.map((w) => `${w.people.join(", ")} @ ${w.domain}`).join("; ")}
  (Ctrl+C stops it)
`);
  });
}
