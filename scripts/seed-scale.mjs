// `npm run seed:scale -- --emails 1000000 [--persist-to DIR]`: fills the local D1 database with a
// synthetic contact index of that many addresses, to see how the index behaves when it is large.
//
// Written straight into the SQLite file behind the local D1 (one transaction, prepared statements:
// 12-35 s for a million addresses here) after the migrations are applied; `wrangler dev` must not
// be running on the same state meanwhile. Without --persist-to it is `npm start`'s state.
//
// What it writes, all on registrable domains `*-scale.test` (reserved TLD; a re-run replaces them):
// - `--emails` addresses on domains `d<n>-scale.test` of 10 addresses each (2 role addresses, 8
//   people), with `domains` (crawled now), `companies`, `people`, 1-2 `email_sources` per address
//   (every 7th no longer on its page) and a removal request (`claims`) for every 1,000th address;
// - two domains measured by `npm run bench -- scale`: `small-scale.test` (10 addresses) and
//   `big-scale.test` (`--big`, default 10,000), the same at every size;
// - `billed_requests`: one 30-day window per 10 addresses, spread over 1,000 synthetic accounts.
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { applyMigrations, root } from "./lib/local.mjs";

export const SMALL_DOMAIN = "small-scale.test";
export const BIG_DOMAIN = "big-scale.test";
export const PER_DOMAIN = 10;
const GENERIC = ["info", "sales", "contact", "support", "press", "jobs", "hello", "office", "billing", "careers"];
const FIRST =
  "ada alan anna ben carl clara dan dora emil ella finn gina hugo ida ivan jana karl lena leo lisa marc mia nils nora omar olga paul pia rafa rosa sam sara tom tina ugo uma vic vera will xena yann yara zack zoe".split(
    " ",
  );
const LAST =
  "adams baker clark davis evans frank green hall irwin jones king lopez moore nash olsen price quinn reed smith taylor upton vance walsh xu young zimmer berg costa dubois ek fischer garcia huber ito jensen kowalski larsen meyer novak".split(
    " ",
  );
const POSITIONS = [
  ["Software Engineer", "it", "junior"],
  ["Head of Sales", "sales", "executive"],
  ["Marketing Manager", "marketing", "senior"],
  ["Accountant", "finance", "junior"],
  ["Chief Executive Officer", "executive", "executive"],
  ["HR Specialist", "hr", "junior"],
  ["Support Agent", "support", "junior"],
  ["Product Designer", "design", "senior"],
];
const COUNTRIES = ["US", "FR", "DE", "GB", "ES", "NL"];
const sha256 = (s) => createHash("sha256").update(s).digest("hex");

/** Whether the SQLite file at `file` has a table named `table`. */
function hasTable(file, table) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table));
  } finally {
    db.close();
  }
}

/**
 * The SQLite file behind the main D1 database (binding DB) of a wrangler state directory: the one
 * with the accounts table. The index databases INDEX_0 … INDEX_3 (wrangler.toml) have files of their
 * own beside it; with INDEX_SHARDS = 1, as deployed, the index lives in DB.
 */
export function d1File(persistTo) {
  const dir = path.join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")
    .map((f) => path.join(dir, f))
    .filter((file) => hasTable(file, "accounts"));
  if (files.length !== 1) throw new Error(`expected one D1 database with accounts in ${dir}, found ${files.length}`);
  return files[0];
}

/** The person (or role) behind address `k` of a domain: deterministic, unique within a domain up to 40,000 addresses. */
export function addressOf(_domain, k) {
  if (k < 2 && k < GENERIC.length) return { local: GENERIC[k], generic: true };
  const i = k - 2;
  const first = FIRST[i % FIRST.length];
  const last = LAST[Math.floor(i / FIRST.length) % LAST.length];
  const suffix = Math.floor(i / (FIRST.length * LAST.length));
  return {
    local: `${first}.${last}${suffix ? suffix : ""}`,
    first,
    last,
    generic: false,
    position: POSITIONS[i % POSITIONS.length],
  };
}

/**
 * Writes the synthetic index into `file`. Returns row counts. `emails` background addresses plus the
 * two measured domains; the same seed gives the same rows.
 */
export function seedScale(file, { emails, big = 10_000, now = Date.now() } = {}) {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA synchronous = OFF");
  const counts = { domains: 0, emails: 0, sources: 0, people: 0, claims: 0, billed: 0 };
  const run = (sql) => db.exec(sql);
  run("BEGIN");
  try {
    // A re-run replaces the previous synthetic index.
    run(`DELETE FROM email_sources WHERE email LIKE '%-scale.test'`);
    run(`DELETE FROM claims WHERE kind = 'email' AND value LIKE '%-scale.test'`);
    for (const table of ["emails", "people", "companies", "domains"])
      run(`DELETE FROM ${table} WHERE domain LIKE '%-scale.test'`);
    run(`DELETE FROM billed_requests WHERE account_id >= 1000000000`);

    const domainStmt = db.prepare(
      `INSERT INTO domains (domain, crawl_status, crawled_at, pages_crawled, updated_at) VALUES (?, 'done', ?, 5, ?)`,
    );
    const companyStmt = db.prepare(
      `INSERT INTO companies (domain, name, industry, country, city, source, updated_at) VALUES (?, ?, 'Computer Software', ?, 'Paris', 'crawl', ?)`,
    );
    const emailStmt = db.prepare(
      `INSERT INTO emails (email, domain, local_part, type, first_name, last_name, position, department, seniority, source, first_seen_at, last_seen_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'crawl', ?, ?)`,
    );
    const sourceStmt = db.prepare(
      `INSERT INTO email_sources (email, uri, website_url, extracted_on, last_seen_on, still_on_page) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const personStmt = db.prepare(
      `INSERT INTO people (domain, email, first_name, last_name, full_name, position, department, seniority, country, professional_network_url, source, source_uri, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'crawl', ?, ?)`,
    );
    const claimStmt = db.prepare(
      `INSERT OR IGNORE INTO claims (kind, value, reason, created_at) VALUES ('email', ?, 'scale seed', ?)`,
    );
    const billedStmt = db.prepare(
      `INSERT OR IGNORE INTO billed_requests (account_id, fingerprint, billed_at) VALUES (?, ?, ?)`,
    );

    let serial = 0;
    const addDomain = (domain, size, country) => {
      domainStmt.run(domain, now, now);
      companyStmt.run(domain, `Company ${domain.split(".")[0]}`, country, now);
      counts.domains++;
      for (let k = 0; k < size; k++) {
        const n = serial++;
        const a = addressOf(domain, k);
        const email = `${a.local}@${domain}`;
        const [position, department, seniority] = a.generic ? [null, null, null] : a.position;
        const seen = now - (n % 90) * 86_400_000;
        emailStmt.run(
          email,
          domain,
          a.local,
          a.generic ? "generic" : "personal",
          a.first ?? null,
          a.last ?? null,
          position,
          department,
          seniority,
          seen,
          now,
        );
        const page = `https://${domain}/${a.generic ? "contact" : "team"}`;
        sourceStmt.run(email, page, domain, seen, now, n % 7 === 0 ? 0 : 1);
        counts.sources++;
        if (n % 3 === 0) {
          sourceStmt.run(email, `https://${domain}/news/${n}`, domain, seen, now, 1);
          counts.sources++;
        }
        if (!a.generic) {
          personStmt.run(
            domain,
            email,
            a.first,
            a.last,
            `${a.first} ${a.last}`,
            position,
            department,
            seniority,
            COUNTRIES[n % COUNTRIES.length],
            `https://www.linkedin.com/in/${a.local.replace(".", "-")}-${n}`,
            page,
            now,
          );
          counts.people++;
        }
        if (n % 1000 === 999) {
          claimStmt.run(email, now);
          counts.claims++;
        }
        if (n % 10 === 0) {
          billedStmt.run(1_000_000_000 + (n % 1000), sha256(`scale ${n}`), now - (n % 40) * 86_400_000);
          counts.billed++;
        }
        counts.emails++;
      }
    };
    addDomain(SMALL_DOMAIN, PER_DOMAIN, "FR");
    addDomain(BIG_DOMAIN, big, "US");
    for (let d = 0; d * PER_DOMAIN < emails; d++)
      addDomain(`d${d}-scale.test`, Math.min(PER_DOMAIN, emails - d * PER_DOMAIN), COUNTRIES[d % COUNTRIES.length]);
    run("COMMIT");
  } catch (err) {
    run("ROLLBACK");
    throw err;
  } finally {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
  }
  return counts;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      emails: { type: "string", default: "1000000" },
      big: { type: "string", default: "10000" },
      "persist-to": { type: "string" },
    },
  });
  const emails = Number(values.emails);
  const big = Number(values.big);
  if (!Number.isInteger(emails) || emails < 0 || !Number.isInteger(big) || big < 10 || big > 40_000) {
    throw new Error("--emails takes a whole number; --big a whole number from 10 to 40,000");
  }
  const persistTo = values["persist-to"] ? path.resolve(values["persist-to"]) : path.join(root, ".wrangler", "state");
  applyMigrations(values["persist-to"] ? { persistTo } : undefined);
  const started = Date.now();
  const counts = seedScale(d1File(persistTo), { emails, big });
  console.log(`seeded ${persistTo} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(counts)}`);
}
