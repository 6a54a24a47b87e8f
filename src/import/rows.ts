import { parse as parseCsvRecords } from "csv-parse/sync";
import { type CountryCode, isSupportedCountry, parsePhoneNumberWithError } from "libphonenumber-js/max";
import { parse as parseHost } from "tldts";
import { z } from "zod";
import { isRoleLocalPart } from "../engine/data/domain-lists.js";
import { normaliseEmail, normaliseProfileUrl } from "../engine/index/claims.js";
import { DEPARTMENTS, SENIORITIES } from "../engine/people/positions.js";

/**
 * Validation of operator-owned rows (CSV or NDJSON) before they enter the contact index. Shared by
 * `npm run import` (bundled for Node by scripts/import.mjs) and POST /operator/import, so a row
 * means the same thing on both paths. A row is rejected with a reason rather than "fixed" by
 * guessing; fields that are present but unusable reject the row, absent fields stay null.
 *
 * Each kind of row is a zod schema: its fields are checked one by one (in the order below, the
 * first problem is the reason given), then the rules that span fields (a person's email belongs to
 * its domain, a phone is read in the row's country) run on the checked fields.
 */

export const COMPANY_SIZES = [
  "1-10",
  "11-50",
  "51-250",
  "251-1K",
  "1K-5K",
  "5K-10K",
  "10K-50K",
  "50K-100K",
  "100K+",
] as const;
export const COMPANY_TYPES = ["education", "government", "nonprofit", "private", "public", "personal"] as const;

type Raw = Record<string, unknown>;

const MAX_TEXT = 2000;

/** A check's refusal; it becomes the row's reason. */
class RowError extends Error {}

/** A check as a zod transform: a RowError becomes the schema's issue, with its message as is. */
const checked =
  <I, O>(check: (input: I) => O) =>
  (input: I, ctx: z.RefinementCtx): O => {
    try {
      return check(input);
    } catch (err) {
      if (!(err instanceof RowError)) throw err;
      ctx.addIssue({ code: "custom", message: err.message });
      return z.NEVER;
    }
  };

/** A cell as text: numbers are read as text, blank is absent (null). */
const text = (key: string) =>
  z
    .unknown()
    .optional()
    .transform(
      checked((v): string | null => {
        if (v === undefined || v === null) return null;
        if (typeof v !== "string" && typeof v !== "number") throw new RowError(`${key} must be text.`);
        const s = String(v).trim();
        if (s.length > MAX_TEXT) throw new RowError(`${key} is longer than ${MAX_TEXT} characters.`);
        return s === "" ? null : s;
      }),
    );

/** Text with its runs of white space made single spaces. */
const name = (key: string) => text(key).transform((v) => v?.replace(/\s+/g, " ") ?? null);

const oneOf = <T extends string>(key: string, allowed: readonly T[]) =>
  text(key).transform(
    checked((v): T | null => {
      const lower = v?.toLowerCase();
      if (!lower) return null;
      const hit = allowed.find((a) => a.toLowerCase() === lower);
      if (!hit) throw new RowError(`${key} must be one of ${allowed.join(", ")}.`);
      return hit;
    }),
  );

/** A list: a JSON array of text, or CSV text with items separated by ; or |. Duplicates dropped. */
const list = (key: string) =>
  z
    .unknown()
    .optional()
    .transform(
      checked((v): string[] | null => {
        if (v === undefined || v === null || v === "") return null;
        const items = Array.isArray(v) ? v : typeof v === "string" ? v.split(/[;|]/) : null;
        if (!items || items.some((i) => typeof i !== "string"))
          throw new RowError(`${key} must be a list of text (separate CSV items with ; or |).`);
        const cleaned = (items as string[]).map((i) => i.trim()).filter(Boolean);
        return cleaned.length ? [...new Set(cleaned)] : null;
      }),
    );

/** The two sides of an address checkedEmail accepted (it holds one @). */
const localPart = (email: string) => email.slice(0, email.indexOf("@"));
const domainPart = (email: string) => email.slice(email.indexOf("@") + 1);

/** A failed parse's first message (zod reports at least one issue). */
const firstIssue = (error: z.ZodError) => error.issues[0]?.message ?? "the row is invalid.";

const url = (key: string) => text(key).transform(checked((v) => (v ? checkedUrl(v, key) : null)));
const email = text("email").transform(checked((v) => (v ? checkedEmail(v) : null)));
const domain = (key: string) => text(key).transform(checked((v) => (v ? checkedDomain(v) : null)));
const country = text("country").transform(checked(checkedCountry));

/** The profile URL is `professional_network`, or its alias `linkedin`. */
const profileOf = (r: { professional_network: string | null; linkedin: string | null }) =>
  r.professional_network ?? r.linkedin;

const KindSchema = z
  .object({
    kind: text("kind"),
    email: text("email"),
    first_name: text("first_name"),
    last_name: text("last_name"),
    full_name: text("full_name"),
    linkedin: text("linkedin"),
    professional_network: text("professional_network"),
  })
  .transform(
    checked((r): "person" | "company" | "phone" => {
      const declared = r.kind?.toLowerCase();
      if (declared) {
        if (declared === "person" || declared === "company" || declared === "phone") return declared;
        throw new RowError(`kind must be person, company or phone (got '${declared}').`);
      }
      // Without an explicit kind, a row naming a person (or an address) is a person; a row that only
      // describes a domain is a company.
      const personish = r.email || r.first_name || r.last_name || r.full_name || r.linkedin || r.professional_network;
      return personish ? "person" : "company";
    }),
  );

export const PersonRowSchema = z
  .object({
    email,
    professional_network: text("professional_network"),
    linkedin: text("linkedin"),
    domain: domain("domain"),
    first_name: name("first_name"),
    last_name: name("last_name"),
    full_name: name("full_name"),
    country,
    type: text("type"),
    position: name("position"),
    department: oneOf("department", DEPARTMENTS),
    seniority: oneOf("seniority", SENIORITIES),
    gender: oneOf("gender", ["male", "female"] as const),
    microblog: url("microblog"),
    twitter: url("twitter"),
    phone: text("phone"),
    source_uri: url("source_uri"),
  })
  .transform(
    checked((r) => {
      const profileText = profileOf(r);
      const professionalNetworkUrl = profileText ? checkedProfile(profileText) : null;
      const rowDomain = r.domain ?? (r.email ? checkedDomain(domainPart(r.email)) : null);
      if (!rowDomain) throw new RowError("a person needs an email or a domain.");
      if (r.email && !sameRegistrable(domainPart(r.email), rowDomain))
        throw new RowError(`email ${r.email} does not belong to domain ${rowDomain}.`);
      if (!r.email && !professionalNetworkUrl)
        throw new RowError("a person needs an email or a profile URL to be found again.");
      if (r.type && r.type !== "personal" && r.type !== "generic")
        throw new RowError("type must be personal or generic.");
      const fullName = r.full_name ?? (r.first_name && r.last_name ? `${r.first_name} ${r.last_name}` : null);
      const emailType: "personal" | "generic" | null = r.email
        ? ((r.type as "personal" | "generic" | null) ??
          (r.first_name || r.last_name || fullName || !isRoleLocalPart(localPart(r.email)) ? "personal" : "generic"))
        : null;
      return {
        kind: "person" as const,
        domain: rowDomain,
        email: r.email,
        emailType,
        firstName: r.first_name,
        lastName: r.last_name,
        fullName,
        position: r.position,
        department: r.department,
        seniority: r.seniority,
        country: r.country,
        gender: r.gender,
        professionalNetworkUrl,
        microblog: r.microblog ?? r.twitter,
        phone: r.phone ? checkedPhone(r.phone, r.country) : null,
        sourceUri: r.source_uri,
      };
    }),
  );

export const CompanyRowSchema = z
  .object({
    domain: text("domain"),
    website_url: text("website_url"),
    website: text("website"),
    country,
    employee_count: text("employee_count").transform(
      checked((employees) => {
        if (!employees) return null;
        const count = Number(employees.replace(/[, ]/g, ""));
        if (!Number.isInteger(count) || count < 0) throw new RowError("employee_count must be a whole number.");
        return count;
      }),
    ),
    founded: text("founded").transform(
      checked((founded) => {
        if (founded && !/^\d{4}(-\d{2}(-\d{2})?)?$/.test(founded))
          throw new RowError("founded must be a year (YYYY) or a date (YYYY-MM-DD).");
        return founded;
      }),
    ),
    name: name("name"),
    company: name("company"),
    organization: name("organization"),
    description: name("description"),
    logo: url("logo"),
    industry: name("industry"),
    industries: name("industries"),
    company_size: oneOf("company_size", COMPANY_SIZES),
    size: oneOf("size", COMPANY_SIZES),
    revenue: name("revenue"),
    company_type: oneOf("company_type", COMPANY_TYPES),
    state: name("state"),
    city: name("city"),
    street_address: name("street_address"),
    postal_code: name("postal_code"),
    phone: text("phone"),
    linkedin_url: url("linkedin_url"),
    twitter_url: url("twitter_url"),
    facebook_url: url("facebook_url"),
    instagram_url: url("instagram_url"),
    github_url: url("github_url"),
    youtube_url: url("youtube_url"),
    keywords: list("keywords"),
    same_as: list("same_as").transform(checked((urls) => urls?.map((u) => checkedUrl(u, "same_as")) ?? null)),
    technologies: list("technologies").transform((names) => names?.map((t) => t.toLowerCase()) ?? null),
  })
  .transform(
    checked((r) => {
      const domainText = r.domain ?? r.website_url ?? r.website;
      if (!domainText) throw new RowError("a company needs a domain.");
      return {
        kind: "company" as const,
        domain: checkedDomain(domainText),
        name: r.name ?? r.company ?? r.organization,
        description: r.description,
        logo: r.logo,
        industry: r.industry ?? r.industries,
        founded: r.founded,
        employeeCount: r.employee_count,
        companySize: r.company_size ?? r.size,
        revenue: r.revenue,
        companyType: r.company_type,
        country: r.country,
        state: r.state,
        city: r.city,
        streetAddress: r.street_address,
        postalCode: r.postal_code,
        phone: r.phone ? checkedPhone(r.phone, r.country) : null,
        linkedinUrl: r.linkedin_url,
        twitterUrl: r.twitter_url,
        facebookUrl: r.facebook_url,
        instagramUrl: r.instagram_url,
        githubUrl: r.github_url,
        youtubeUrl: r.youtube_url,
        keywords: r.keywords,
        sameAs: r.same_as,
        technologies: r.technologies,
      };
    }),
  );

export const PhoneRowSchema = z
  .object({
    email,
    professional_network: text("professional_network"),
    linkedin: text("linkedin"),
    domain: domain("domain"),
    phone: text("phone"),
    country,
    source_uri: url("source_uri"),
  })
  .transform(
    checked((r) => {
      const rowDomain = r.domain ?? (r.email ? checkedDomain(domainPart(r.email)) : null);
      if (!rowDomain) throw new RowError("a phone needs a domain or an email.");
      if (!r.phone) throw new RowError("a phone row needs phone.");
      const profileText = profileOf(r);
      return {
        kind: "phone" as const,
        domain: rowDomain,
        email: r.email,
        professionalNetworkUrl: profileText ? checkedProfile(profileText) : null,
        phone: checkedPhone(r.phone, r.country),
        sourceUri: r.source_uri,
      };
    }),
  );

export type PersonRow = z.output<typeof PersonRowSchema>;
export type CompanyRow = z.output<typeof CompanyRowSchema>;
export type PhoneRow = z.output<typeof PhoneRowSchema>;
export type ImportRow = PersonRow | CompanyRow | PhoneRow;
export type Checked = { ok: true; row: ImportRow } | { ok: false; reason: string };

const ROW_SCHEMAS = { person: PersonRowSchema, company: CompanyRowSchema, phone: PhoneRowSchema } as const;

/** Checks one raw row (keys are case-insensitive; `linkedin` and `twitter` are accepted as aliases). */
export function checkRow(input: Raw): Checked {
  const raw = lowerKeys(input);
  const kind = KindSchema.safeParse(raw);
  if (!kind.success) return { ok: false, reason: firstIssue(kind.error) };
  const row = ROW_SCHEMAS[kind.data].safeParse(raw);
  return row.success ? { ok: true, row: row.data } : { ok: false, reason: firstIssue(row.error) };
}

function lowerKeys(raw: Raw): Raw {
  const out: Raw = {};
  for (const [k, v] of Object.entries(raw)) out[k.trim().toLowerCase()] = v;
  return out;
}

function checkedUrl(value: string, key: string): string {
  let u: URL;
  try {
    u = new URL(/^https?:\/\//i.test(value) ? value : `https://${value}`);
  } catch {
    throw new RowError(`${key} is not a URL.`);
  }
  if (!parseHost(u.hostname).domain) throw new RowError(`${key} is not a URL with a public host.`);
  return u.toString();
}

function checkedEmail(value: string): string {
  const email = normaliseEmail(value);
  if (!email || !/^[^@\s"<>()]+@[^@\s]+\.[^@\s]+$/.test(email))
    throw new RowError(`'${value}' is not an email address.`);
  return email;
}

function checkedDomain(value: string): string {
  const host = value
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/[/?#].*$/s, "")
    .replace(/^www\./, "");
  const parsed = parseHost(host);
  if (!parsed.domain || parsed.isIp) throw new RowError(`'${value}' is not a domain.`);
  return parsed.hostname === parsed.domain ? parsed.domain : host;
}

function sameRegistrable(a: string, b: string): boolean {
  return parseHost(a).domain === parseHost(b).domain;
}

function checkedProfile(value: string): string {
  const url = normaliseProfileUrl(value);
  if (!url) throw new RowError(`'${value}' is not a profile URL.`);
  return url;
}

function checkedCountry(value: string | null): string | null {
  if (!value) return null;
  const upper = value.toUpperCase();
  if (!/^[A-Z]{2}$/.test(upper) || !isSupportedCountry(upper))
    throw new RowError(`country must be an ISO 3166 alpha-2 code (got '${value}').`);
  return upper;
}

function checkedPhone(value: string, country: string | null): string {
  try {
    const parsed = parsePhoneNumberWithError(value, (country ?? undefined) as CountryCode | undefined);
    if (parsed.isValid()) return parsed.number;
  } catch {}
  throw new RowError(
    `'${value}' is not a valid phone number${country ? ` for ${country}` : " (use +<country code> or set country)"}.`,
  );
}

/**
 * CSV as written by spreadsheets (RFC 4180: quoted fields, doubled quotes; CRLF, LF or CR line
 * ends), parsed by csv-parse; the first non-blank line names the columns. Returns one object per
 * data line with the 1-based line it starts on; a line csv-parse cannot read (a quote left open,
 * text after a closing quote) comes back with an error instead of a row.
 */
export function parseCsv(textIn: string): { line: number; row: Raw | null; error?: string }[] {
  const records: { line: number; fields: string[] | null; error?: string }[] = [];
  parseCsvRecords(textIn, {
    bom: true,
    record_delimiter: ["\r\n", "\n", "\r"],
    relax_column_count: true,
    relax_quotes: true,
    skip_records_with_error: true,
    on_skip: (err) => {
      if (err)
        records.push({
          line: Number(err.lines),
          fields: null,
          error: `the line is not valid CSV (${err.message.replace(/\.$/, "")}).`,
        });
      return undefined;
    },
    on_record: (record: string[], info) => {
      // csv-parse counts the line a record ends on; a quoted field may span several.
      const breaks = record.reduce((n, f) => n + (f.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
      records.push({ line: info.lines - breaks, fields: record });
      return null;
    },
  });
  records.sort((a, b) => a.line - b.line);
  const nonEmpty = records.filter((r) => r.fields === null || r.fields.some((f) => f.trim() !== ""));
  const headerAt = nonEmpty.findIndex((r) => r.fields !== null);
  const header = nonEmpty[headerAt]?.fields;
  if (!header) return [];
  const names = header.map((h) => h.trim().toLowerCase());
  return nonEmpty
    .slice(headerAt + 1)
    .map(({ line, fields, error }) =>
      fields === null
        ? { line, row: null, error }
        : { line, row: Object.fromEntries(names.map((n, i) => [n, fields[i] ?? ""])) },
    );
}

/** NDJSON: one JSON object per line; a line that is not an object is reported, not skipped silently. */
export function parseNdjson(textIn: string): { line: number; row: Raw | null; error?: string }[] {
  const out: { line: number; row: Raw | null; error?: string }[] = [];
  textIn.split(/\r?\n/).forEach((l, i) => {
    if (!l.trim()) return;
    try {
      const v = JSON.parse(l);
      if (v && typeof v === "object" && !Array.isArray(v)) out.push({ line: i + 1, row: v });
      else out.push({ line: i + 1, row: null, error: "the line is not a JSON object." });
    } catch {
      out.push({ line: i + 1, row: null, error: "the line is not valid JSON." });
    }
  });
  return out;
}

export interface ImportReport {
  accepted: number;
  rejected: number;
  by_kind: Record<ImportRow["kind"], number>;
  errors: { line: number; reason: string }[];
}

/** Parses and checks a whole file; `format` is decided by the caller (extension or content type). */
export function checkFile(content: string, format: "csv" | "ndjson"): { rows: ImportRow[]; report: ImportReport } {
  const parsed = format === "csv" ? parseCsv(content) : parseNdjson(content);
  const rows: ImportRow[] = [];
  const report: ImportReport = { accepted: 0, rejected: 0, by_kind: { person: 0, company: 0, phone: 0 }, errors: [] };
  for (const p of parsed) {
    const checked: Checked = p.row ? checkRow(p.row) : { ok: false, reason: p.error ?? "empty line." };
    if (checked.ok) {
      rows.push(checked.row);
      report.accepted++;
      report.by_kind[checked.row.kind]++;
    } else {
      report.rejected++;
      report.errors.push({ line: p.line, reason: checked.reason });
    }
  }
  return { rows, report };
}
