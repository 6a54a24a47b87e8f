import { buildRing, ownerOf, shardKeyOf } from "./shards.js";

/**
 * Moving a domain's index rows from one index database to another, as the reshard workflow does it
 * (src/operator/reshard-run.ts). Each operation is safe to run again after a crash at any
 * point: a copy inserts the rows the target does not hold and fills only the empty columns of
 * those it holds (the target's own rows, written by the dual writes while the move runs, are newer
 * and win), a cleanup deletes what is still there.
 */

/** Columns copied per table (not the AUTOINCREMENT ids: the target numbers its own rows). */
const COLUMNS: Record<string, readonly string[]> = {
  domains: [
    "domain",
    "crawl_status",
    "crawled_at",
    "pages_crawled",
    "last_error",
    "accept_all",
    "formats",
    "updated_at",
  ],
  companies: [
    "domain",
    "name",
    "description",
    "logo",
    "industry",
    "founded",
    "employee_count",
    "company_size",
    "revenue",
    "company_type",
    "country",
    "state",
    "city",
    "street_address",
    "postal_code",
    "phone",
    "linkedin_url",
    "twitter_url",
    "facebook_url",
    "instagram_url",
    "github_url",
    "youtube_url",
    "keywords",
    "same_as",
    "technologies",
    "source",
    "updated_at",
  ],
  emails: [
    "email",
    "domain",
    "local_part",
    "type",
    "first_name",
    "last_name",
    "middle_name",
    "display_name",
    "name_cue",
    "position",
    "department",
    "seniority",
    "source",
    "first_seen_at",
    "last_seen_at",
  ],
  email_sources: ["email", "uri", "website_url", "extracted_on", "last_seen_on", "still_on_page"],
  people: [
    "domain",
    "email",
    "first_name",
    "last_name",
    "full_name",
    "position",
    "department",
    "seniority",
    "country",
    "gender",
    "professional_network_url",
    "microblog",
    "phone",
    "source",
    "source_uri",
    "updated_at",
  ],
  phones: [
    "domain",
    "email",
    "professional_network_url",
    "e164",
    "source_uri",
    "source",
    "first_seen_at",
    "last_seen_at",
  ],
};

export const INDEX_TABLES = Object.keys(COLUMNS);

/** The rows of one domain in a table (email_sources: those of the domain's addresses). */
const SELECT_OF: Record<string, string> = {
  email_sources: "SELECT * FROM email_sources WHERE email IN (SELECT email FROM emails WHERE domain = ?1)",
};
const selectOf = (table: string) => SELECT_OF[table] ?? `SELECT * FROM ${table} WHERE domain = ?1`;

/**
 * Rows the target holds already were written there by the dual writes while the move ran: they are
 * newer and win. A fact-holding row (a company, an address, a person) written there as a partial
 * upsert (an import that names only a company's new name) keeps its values and takes the old row's
 * for the columns it left empty; state rows (a domain's crawl, a source) are kept as they are.
 * People without an address and phones (whose unique index lets NULL addresses repeat) are matched
 * on what identifies them.
 */
const KEY: Record<string, string> = { companies: "domain", emails: "email", people: "email" };
const ALREADY_THERE: Record<string, string> = {
  people: `j.email IS NULL AND EXISTS (SELECT 1 FROM people p WHERE p.domain = j.domain AND p.email IS NULL
             AND p.professional_network_url IS j.professional_network_url AND p.full_name IS j.full_name)`,
  phones: "EXISTS (SELECT 1 FROM phones p WHERE p.domain = j.domain AND p.e164 = j.e164 AND p.email IS j.email)",
};

function mergeClause(table: string, columns: readonly string[]): string {
  const key = KEY[table];
  if (!key) return "";
  const sets = columns
    .filter((c) => c !== key)
    .map((c) =>
      c === "first_seen_at" ? `${c} = min(${c}, excluded.${c})` : `${c} = coalesce(${table}.${c}, excluded.${c})`,
    );
  return ` ON CONFLICT(${key}) DO UPDATE SET ${sets.join(", ")}`;
}

/** A JSON array parameter holds at most this many characters (D1: 2 MB per string). */
const MAX_JSON_CHARS = 1_500_000;

function insertFromJson(target: D1Database, table: string, rows: readonly Record<string, unknown>[]) {
  const columns = COLUMNS[table] ?? [];
  const fields = columns.map((c) => `json_extract(value, '$.${c}') AS ${c}`).join(", ");
  const guard = ALREADY_THERE[table];
  const merge = mergeClause(table, columns);
  // "WHERE true": SQLite needs a WHERE before an upsert's ON CONFLICT on an INSERT … SELECT.
  const sql = `INSERT ${merge ? "" : "OR IGNORE "}INTO ${table} (${columns.join(", ")})
    SELECT ${columns.join(", ")} FROM (SELECT ${fields} FROM json_each(?1)) j WHERE ${guard ? `NOT (${guard})` : "true"}${merge}`;
  const statements: D1PreparedStatement[] = [];
  let chunk: Record<string, unknown>[] = [];
  let size = 0;
  for (const row of rows) {
    const picked = Object.fromEntries(columns.map((c) => [c, row[c] ?? null]));
    const length = JSON.stringify(picked).length;
    if (chunk.length && size + length > MAX_JSON_CHARS) {
      statements.push(target.prepare(sql).bind(JSON.stringify(chunk)));
      chunk = [];
      size = 0;
    }
    chunk.push(picked);
    size += length;
  }
  if (chunk.length) statements.push(target.prepare(sql).bind(JSON.stringify(chunk)));
  return statements;
}

/** Copies every row of `domain` from `source` to `target` in one D1 batch (one transaction). Returns the rows read. */
export async function copyDomain(source: D1Database, target: D1Database, domain: string): Promise<number> {
  const read = await source.batch(INDEX_TABLES.map((t) => source.prepare(selectOf(t)).bind(domain)));
  const statements = INDEX_TABLES.flatMap((table, i) =>
    insertFromJson(target, table, (read[i]?.results ?? []) as Record<string, unknown>[]),
  );
  if (statements.length) await target.batch(statements);
  return read.reduce((n, r) => n + r.results.length, 0);
}

/** Deletes every row of `domain` from `db` in one batch (sources before the addresses they hang on). */
export async function deleteDomain(d1: D1Database, domain: string): Promise<void> {
  await d1.batch([
    d1.prepare("DELETE FROM email_sources WHERE email IN (SELECT email FROM emails WHERE domain = ?1)").bind(domain),
    ...["emails", "people", "phones", "companies", "domains"].map((t) =>
      d1.prepare(`DELETE FROM ${t} WHERE domain = ?1`).bind(domain),
    ),
  ]);
}

/**
 * The next `limit` domain values `source` holds after `after` (in order), with those among them
 * whose rows belong elsewhere on the `to` ring. `last` is null when the source has no more.
 */
export async function domainsToMove(
  source: D1Database,
  sourceName: string,
  to: readonly string[],
  after: string,
  limit: number,
): Promise<{ moving: string[]; last: string | null }> {
  const { results } = await source
    .prepare(
      `SELECT domain FROM (${INDEX_TABLES.filter((t) => t !== "email_sources")
        .map((t) => `SELECT domain FROM ${t} WHERE domain > ?1`)
        .join(" UNION ")}) ORDER BY domain LIMIT ?2`,
    )
    .bind(after, limit)
    .all<{ domain: string }>();
  const ring = buildRing(to);
  return {
    moving: results.map((r) => r.domain).filter((d) => ownerOf(ring, shardKeyOf(d)) !== sourceName),
    last: results.length === limit ? (results.at(-1)?.domain ?? null) : null,
  };
}

/** Rows per index table in one database (the reshard's before/after check, the bench). */
export async function indexRowCounts(d1: D1Database): Promise<Record<string, number>> {
  const counts = await d1.batch(INDEX_TABLES.map((t) => d1.prepare(`SELECT COUNT(*) AS n FROM ${t}`)));
  return Object.fromEntries(
    INDEX_TABLES.map((t, i) => [t, Number((counts[i]?.results[0] as { n: number } | undefined)?.n ?? 0)]),
  );
}
