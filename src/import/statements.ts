import type { CompanyRow, ImportRow, PersonRow } from "./rows.js";

/**
 * Checked import rows as parameterised SQL, so the Worker route (D1 batch) and the local script
 * (`wrangler d1 execute --local`) write exactly the same thing. Imported facts fill or replace
 * what the index holds for a field; a field the row leaves empty keeps its stored value. Rows
 * created here carry source 'import'; rows the crawler created keep their source.
 */
export interface Statement {
  sql: string;
  params: (string | number | null)[];
}

/** A statement with the domain of the row it writes: the index database it goes to (src/db/shards.ts). */
export interface RoutedStatement extends Statement {
  domain: string;
}

export function statementsFor(rows: readonly ImportRow[], now: number): RoutedStatement[] {
  const out: RoutedStatement[] = [];
  for (const row of rows) out.push(...statementsOfRow(row, now).map((s) => ({ ...s, domain: row.domain })));
  return out;
}

function statementsOfRow(row: ImportRow, now: number): Statement[] {
  const out: Statement[] = [];
  if (row.kind === "company") out.push(...companyStatements(row, now));
  else if (row.kind === "person") out.push(...personStatements(row, now));
  else
    out.push(
      ...phoneStatements(
        {
          domain: row.domain,
          email: row.email,
          profile: row.professionalNetworkUrl,
          e164: row.phone,
          sourceUri: row.sourceUri,
        },
        now,
      ),
    );
  return out;
}

const json = (v: string[] | null) => (v ? JSON.stringify(v) : null);

function upsert(
  table: string,
  conflict: string,
  values: Record<string, string | number | null>,
  keepOnConflict: string[] = [],
): Statement {
  const cols = Object.keys(values);
  const updates = cols
    .filter((c) => !conflict.split(",").includes(c) && !keepOnConflict.includes(c))
    .map((c) => `${c} = COALESCE(excluded.${c}, ${table}.${c})`);
  return {
    sql: `INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")}) ON CONFLICT(${conflict}) DO UPDATE SET ${updates.join(", ")}`,
    params: Object.values(values),
  };
}

function companyStatements(c: CompanyRow, now: number): Statement[] {
  const stmts = [
    upsert(
      "companies",
      "domain",
      {
        domain: c.domain,
        name: c.name,
        description: c.description,
        logo: c.logo,
        industry: c.industry,
        founded: c.founded,
        employee_count: c.employeeCount,
        company_size: c.companySize,
        revenue: c.revenue,
        company_type: c.companyType,
        country: c.country,
        state: c.state,
        city: c.city,
        street_address: c.streetAddress,
        postal_code: c.postalCode,
        phone: c.phone,
        linkedin_url: c.linkedinUrl,
        twitter_url: c.twitterUrl,
        facebook_url: c.facebookUrl,
        instagram_url: c.instagramUrl,
        github_url: c.githubUrl,
        youtube_url: c.youtubeUrl,
        keywords: json(c.keywords),
        same_as: json(c.sameAs),
        technologies: json(c.technologies),
        source: "import",
        updated_at: now,
      },
      ["source"],
    ),
  ];
  if (c.phone)
    stmts.push(
      ...phoneStatements({ domain: c.domain, email: null, profile: null, e164: c.phone, sourceUri: null }, now),
    );
  return stmts;
}

function personStatements(p: PersonRow, now: number): Statement[] {
  const person = {
    domain: p.domain,
    email: p.email,
    first_name: p.firstName,
    last_name: p.lastName,
    full_name: p.fullName,
    position: p.position,
    department: p.department,
    seniority: p.seniority,
    country: p.country,
    gender: p.gender,
    professional_network_url: p.professionalNetworkUrl,
    microblog: p.microblog,
    phone: p.phone,
    source: "import",
    source_uri: p.sourceUri,
    updated_at: now,
  };
  const stmts: Statement[] = [];
  if (p.email) {
    stmts.push(upsert("people", "email", person, ["source"]));
    stmts.push(
      upsert(
        "emails",
        "email",
        {
          email: p.email,
          domain: p.domain,
          local_part: p.email.slice(0, p.email.lastIndexOf("@")),
          type: p.emailType ?? "personal",
          first_name: p.firstName,
          last_name: p.lastName,
          position: p.position,
          department: p.department,
          seniority: p.seniority,
          source: "import",
          first_seen_at: now,
          last_seen_at: now,
        },
        ["source", "first_seen_at"],
      ),
    );
  } else {
    // No address to key on: the profile URL identifies the person (people has no unique index on it).
    const cols = Object.keys(person).filter((c) => c !== "email");
    const sets = cols.filter((c) => c !== "source").map((c) => `${c} = COALESCE(?, ${c})`);
    const vals = cols.map((c) => person[c as keyof typeof person]);
    stmts.push({
      sql: `UPDATE people SET ${sets.join(", ")} WHERE professional_network_url = ?`,
      params: [
        ...cols.filter((c) => c !== "source").map((c) => person[c as keyof typeof person]),
        p.professionalNetworkUrl,
      ],
    });
    stmts.push({
      sql: `INSERT INTO people (${cols.join(", ")}) SELECT ${cols.map(() => "?").join(", ")} WHERE NOT EXISTS (SELECT 1 FROM people WHERE professional_network_url = ?)`,
      params: [...vals, p.professionalNetworkUrl],
    });
  }
  if (p.phone)
    stmts.push(
      ...phoneStatements(
        { domain: p.domain, email: p.email, profile: p.professionalNetworkUrl, e164: p.phone, sourceUri: p.sourceUri },
        now,
      ),
    );
  return stmts;
}

function phoneStatements(
  ph: { domain: string; email: string | null; profile: string | null; e164: string; sourceUri: string | null },
  now: number,
): Statement[] {
  // The unique index treats NULL emails as distinct, so company numbers are matched with IS.
  return [
    {
      sql: "INSERT INTO phones (domain, email, professional_network_url, e164, source_uri, source, first_seen_at, last_seen_at) SELECT ?, ?, ?, ?, ?, 'import', ?, ? WHERE NOT EXISTS (SELECT 1 FROM phones WHERE domain = ? AND e164 = ? AND email IS ?)",
      params: [ph.domain, ph.email, ph.profile, ph.e164, ph.sourceUri, now, now, ph.domain, ph.e164, ph.email],
    },
    {
      sql: "UPDATE phones SET last_seen_at = ?, professional_network_url = COALESCE(?, professional_network_url) WHERE domain = ? AND e164 = ? AND email IS ?",
      params: [now, ph.profile, ph.domain, ph.e164, ph.email],
    },
  ];
}

/** One statement with its parameters written as SQL literals, for `wrangler d1 execute --file`. */
export function inlineStatement(s: Statement): string {
  let i = 0;
  const sql = s.sql.replace(/\?/g, () => literal(s.params[i++] ?? null));
  if (i !== s.params.length) throw new Error(`statement has ${i} placeholders for ${s.params.length} parameters`);
  return `${sql};`;
}

function literal(v: string | number | null): string {
  if (v === null) return "NULL";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error("non-finite number in import");
    return String(v);
  }
  return `'${v.replace(/'/g, "''")}'`;
}
