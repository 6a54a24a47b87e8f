import { groupByIndex, onEveryIndex } from "../../db/shards.js";
import type { Env } from "../../env.js";
import { InvalidInput } from "../errors.js";
import { jsonList } from "../index/people.js";
import { countryCode } from "../web/extract/company.js";
import { similarCompanies } from "./similar.js";

/**
 * Company search over the index (POST /reveal/search). Filters are {include[], exclude[]} per
 * field, given flat (`filters.location_country`) or nested under `filters.company` (both shapes
 * are sent by clients of this API). Every filter is a SQL condition with bound values.
 */
export const FILTER_NAMES = [
  "company",
  "location_country",
  "location_city",
  "location_state",
  "industry",
  "size",
  "type",
  "keywords",
  "founded",
  "technologies",
  "similar",
  "revenue",
  "sic",
  "naics",
] as const;
export type FilterName = (typeof FILTER_NAMES)[number];
export interface FilterValue {
  include: string[];
  exclude: string[];
}
export type Filters = Partial<Record<FilterName, FilterValue>>;

/**
 * Values per request, all filters together. D1 binds at most 100 parameters per statement: lists
 * are bound as one JSON array each (json_each), but name patterns and year ranges take one or two
 * parameters per value, so 40 values plus 10 query terms stay under the bound in every case.
 */
export const MAX_FILTER_VALUES = 40;
const D1_MAX_PARAMS = 100;

function bad(message: string): never {
  throw new InvalidInput(null, message);
}

function filterValue(name: string, raw: unknown): FilterValue {
  if (Array.isArray(raw) || typeof raw === "string") raw = { include: Array.isArray(raw) ? raw : [raw] };
  if (!raw || typeof raw !== "object") bad(`The filter '${name}' must be {"include": [...], "exclude": [...]}.`);
  const o = raw as Record<string, unknown>;
  const list = (key: "include" | "exclude") => {
    const v = o[key] ?? [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string"))
      bad(`The filter '${name}.${key}' must be a list of strings.`);
    const cleaned = (v as string[]).map((x) => x.trim()).filter(Boolean);
    if (cleaned.length > MAX_FILTER_VALUES)
      bad(
        `The filter '${name}.${key}' has ${cleaned.length} values; at most ${MAX_FILTER_VALUES} filter values are accepted per request.`,
      );
    return cleaned;
  };
  return { include: list("include"), exclude: list("exclude") };
}

/** Reads flat or nested filters into one flat map; unknown filter names are a 400, not ignored. */
export function parseFilters(raw: unknown): Filters {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) bad("The parameter 'filters' must be an object.");
  const out: Filters = {};
  const put = (name: string, value: unknown) => {
    if (!(FILTER_NAMES as readonly string[]).includes(name))
      bad(`Unknown filter '${name}'. Known: ${FILTER_NAMES.join(", ")}.`);
    out[name as FilterName] = filterValue(name, value);
  };
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (name === "company" && value && typeof value === "object" && !Array.isArray(value)) {
      // Nested shape: filters.company.{location_country, ...}; its own include/exclude is the name filter.
      const { include, exclude, ...nested } = value as Record<string, unknown>;
      if (include !== undefined || exclude !== undefined) put("company", { include, exclude });
      for (const [n, v] of Object.entries(nested)) put(n, v);
    } else put(name, value);
  }
  const total = Object.values(out).reduce((n, f) => n + f.include.length + f.exclude.length, 0);
  if (total > MAX_FILTER_VALUES)
    bad(`The filters carry ${total} values; at most ${MAX_FILTER_VALUES} filter values are accepted per request.`);
  return out;
}

type Param = string | number;
interface Where {
  sql: string[];
  params: Param[];
}

const placeholders = (w: Where, values: Param[]) =>
  values
    .map((v) => {
      w.params.push(v);
      return `?${w.params.length}`;
    })
    .join(", ");
/** A whole list as ONE bound parameter (a JSON array read by json_each), so no list can exhaust D1's parameter bound. */
const inList = (w: Where, values: string[]) =>
  `SELECT value FROM json_each(${placeholders(w, [JSON.stringify(values)])})`;

function textIn(w: Where, column: string, f: FilterValue, normalise: (s: string) => string = (s) => s.toLowerCase()) {
  if (f.include.length)
    w.sql.push(
      `lower(${column}) IN (${inList(
        w,
        f.include.map(normalise).map((s) => s.toLowerCase()),
      )})`,
    );
  if (f.exclude.length)
    w.sql.push(
      `(${column} IS NULL OR lower(${column}) NOT IN (${inList(
        w,
        f.exclude.map(normalise).map((s) => s.toLowerCase()),
      )}))`,
    );
}

function jsonListIn(w: Where, column: string, f: FilterValue) {
  const exists = (values: string[]) =>
    `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(${column}) THEN ${column} ELSE '[]' END) j WHERE lower(j.value) IN (${inList(
      w,
      values.map((v) => v.toLowerCase()),
    )}))`;
  if (f.include.length) w.sql.push(exists(f.include));
  if (f.exclude.length) w.sql.push(`NOT ${exists(f.exclude)}`);
}

const escapeLike = (s: string) => s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);

function nameLike(w: Where, f: FilterValue) {
  const any = (values: string[]) =>
    values.map((v) => `lower(name) LIKE ${placeholders(w, [`%${escapeLike(v)}%`])} ESCAPE '\\'`).join(" OR ");
  if (f.include.length) w.sql.push(`(${any(f.include)})`);
  if (f.exclude.length) w.sql.push(`(name IS NULL OR NOT (${any(f.exclude)}))`);
}

function founded(w: Where, f: FilterValue) {
  const cond = (v: string) => {
    const m = /^(\d{4})(?:\s*-\s*(\d{4}))?$/.exec(v);
    if (!m) bad(`The filter 'founded' takes years (2004) or ranges (2000-2010); got '${v}'.`);
    return `CAST(substr(founded, 1, 4) AS INTEGER) BETWEEN ${placeholders(w, [Number(m[1])])} AND ${placeholders(w, [Number(m[2] ?? m[1])])}`;
  };
  if (f.include.length) w.sql.push(`(founded IS NOT NULL AND (${f.include.map(cond).join(" OR ")}))`);
  if (f.exclude.length) w.sql.push(`(founded IS NULL OR NOT (${f.exclude.map(cond).join(" OR ")}))`);
}

const STOPWORDS = new Set([
  "the",
  "and",
  "for",
  "with",
  "that",
  "companies",
  "company",
  "in",
  "of",
  "at",
  "from",
  "based",
  "who",
  "are",
  "find",
  "me",
  "show",
  "all",
]);

/** Words of a natural-language query worth matching (3+ letters, no filler words). */
export function queryTerms(query: string | undefined): string[] {
  if (!query) return [];
  return [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^\p{L}\p{N}.+#-]+/u)
        .filter((t) => t.length >= 3 && !STOPWORDS.has(t)),
    ),
  ].slice(0, 10);
}

export interface SearchOptions {
  query?: string;
  filters: Filters;
  page: number;
  limit: number;
}

export async function searchCompanies(env: Env, opts: SearchOptions) {
  const w: Where = { sql: [], params: [] };
  const f = opts.filters;
  if (f.company) nameLike(w, f.company);
  if (f.location_country) {
    textIn(w, "country", f.location_country, (s) => {
      const code = countryCode(s);
      if (!code) bad(`The filter 'location_country' takes ISO 3166 codes or English country names; got '${s}'.`);
      return code;
    });
  }
  if (f.location_city) textIn(w, "city", f.location_city);
  if (f.location_state) textIn(w, "state", f.location_state);
  if (f.industry) textIn(w, "industry", f.industry);
  if (f.size) textIn(w, "company_size", f.size);
  if (f.type) textIn(w, "company_type", f.type);
  if (f.revenue) textIn(w, "revenue", f.revenue);
  if (f.keywords) jsonListIn(w, "keywords", f.keywords);
  if (f.technologies) jsonListIn(w, "technologies", f.technologies);
  if (f.founded) founded(w, f.founded);
  // The index holds no SIC or NAICS codes: asking for some matches nothing rather than everything.
  if (f.sic?.include.length || f.naics?.include.length) w.sql.push("0");
  if (f.similar) {
    const lists = async (domains: string[]) => {
      if (domains.length > 5) bad("The filter 'similar' takes at most 5 domains.");
      const found = await Promise.all(domains.map((d) => similarCompanies(env, d.toLowerCase().replace(/^www\./, ""))));
      return [...new Set(found.flatMap((l) => (l ?? []).map((c) => c.domain)))];
    };
    if (f.similar.include.length) {
      const domains = await lists(f.similar.include);
      w.sql.push(domains.length ? `domain IN (${inList(w, domains)})` : "0");
    }
    if (f.similar.exclude.length) {
      const domains = await lists(f.similar.exclude);
      if (domains.length) w.sql.push(`domain NOT IN (${inList(w, domains)})`);
    }
  }
  // Free text: a company must mention at least one term; more mentions rank higher.
  const terms = queryTerms(opts.query);
  const haystack =
    "lower(coalesce(name,'') || ' ' || coalesce(description,'') || ' ' || coalesce(industry,'') || ' ' || coalesce(keywords,'') || ' ' || coalesce(city,'') || ' ' || domain)";
  const termHits = terms.map((t) => `(${haystack} LIKE ${placeholders(w, [`%${escapeLike(t)}%`])} ESCAPE '\\')`);
  if (termHits.length) w.sql.push(`(${termHits.join(" OR ")})`);
  // Cannot happen within MAX_FILTER_VALUES; a 400 rather than D1's "too many SQL variables" 500 if it ever does.
  if (w.params.length > D1_MAX_PARAMS)
    bad(`These filters need too many values at once; send at most ${MAX_FILTER_VALUES} filter values.`);
  const where = w.sql.length ? `WHERE ${w.sql.join(" AND ")}` : "";
  const rank = termHits.length ? `(${termHits.join(" + ")}) DESC,` : "";

  // Companies live with their domain, one index database each: every database counts its matches
  // and gives the ordering keys of its first page × limit matches (in parallel); merged in the same
  // order, the page's domains are those one database would give, and only their rows are read.
  const offset = (opts.page - 1) * opts.limit;
  const perIndex = await onEveryIndex(env, async (index) => {
    const [count, keys] = await index.$client.batch([
      index.$client.prepare(`SELECT COUNT(*) AS n FROM companies ${where}`).bind(...w.params),
      index.$client
        .prepare(
          `SELECT domain, ${rank ? `(${termHits.join(" + ")})` : "0"} AS hits, (name IS NULL) AS nameless
           FROM companies ${where}
           ORDER BY ${rank} (name IS NULL), domain LIMIT ${offset + opts.limit}`,
        )
        .bind(...w.params),
    ]);
    return {
      total: Number((count?.results[0] as { n: number } | undefined)?.n ?? 0),
      keys: (keys?.results ?? []) as { domain: string; hits: number; nameless: number }[],
    };
  });
  const total = perIndex.reduce((sum, r) => sum + r.total, 0);
  const page = perIndex
    .flatMap((r) => r.keys)
    .sort(
      (a, b) => b.hits - a.hits || a.nameless - b.nameless || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0),
    )
    .slice(offset, offset + opts.limit)
    .map((k) => k.domain);
  const rows = new Map<string, Record<string, unknown>>();
  for (const [index, domains] of await groupByIndex(env, page)) {
    const { results } = await index.$client
      .prepare(
        `SELECT c.*, (SELECT COUNT(*) FROM emails e WHERE e.domain = c.domain) AS total_emails
         FROM companies c WHERE c.domain IN (SELECT value FROM json_each(?1))`,
      )
      .bind(JSON.stringify(domains))
      .all<Record<string, unknown>>();
    for (const r of results) rows.set(r.domain as string, r);
  }
  return {
    total,
    companies: page.flatMap((d) => {
      const row = rows.get(d);
      return row ? [revealCompany(row)] : [];
    }),
  };
}

/**
 * Reveal `Company` (docs/wire-contract.md §8.3). `total_similar` is not precomputed, so it is null rather than a
 * guess.
 */
export function revealCompany(r: Record<string, unknown>) {
  const s = (k: string) => (r[k] as string | null) ?? null;
  return {
    name: s("name"),
    description: s("description"),
    country: s("country"),
    state: s("state"),
    city: s("city"),
    street_address: s("street_address"),
    postal_code: s("postal_code"),
    industry: s("industry"),
    company_size: s("company_size"),
    type: s("company_type"),
    founded: s("founded"),
    website_url: r.domain as string,
    revenue: s("revenue"),
    linkedin_url: s("linkedin_url"),
    facebook_url: s("facebook_url"),
    twitter_url: s("twitter_url"),
    instagram_url: s("instagram_url"),
    github_url: s("github_url"),
    youtube_url: s("youtube_url"),
    pinterest_url: null,
    tiktok_url: null,
    keywords: jsonList(s("keywords")),
    technologies: jsonList(s("technologies")),
    total_emails: Number(r.total_emails ?? 0),
    total_similar: null,
    phone_number: r.phone !== null && r.phone !== undefined,
  };
}
