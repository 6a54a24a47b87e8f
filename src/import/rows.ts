import { parsePhoneNumberWithError, isSupportedCountry, type CountryCode } from "libphonenumber-js/max";
import { parse as parseHost } from "tldts";
import { normaliseEmail, normaliseProfileUrl } from "../engine/index/claims.js";
import { isRoleLocalPart } from "../engine/data/domain-lists.js";

/**
 * Validation of operator-owned rows (CSV or NDJSON) before they enter the contact index. Shared by
 * `npm run import` (bundled for Node by scripts/import.mjs) and POST /operator/import, so a row
 * means the same thing on both paths. A row is rejected with a reason rather than "fixed" by
 * guessing; fields that are present but unusable reject the row, absent fields stay null.
 */

export const DEPARTMENTS = [
  "engineering", "sales", "finance", "hr", "it", "marketing", "operations", "management", "executive", "legal",
  "support", "communication", "software", "security", "pr", "warehouse", "diversity", "administrative", "facilities", "accounting",
] as const;
export const SENIORITIES = ["junior", "senior", "executive"] as const;
export const COMPANY_SIZES = ["1-10", "11-50", "51-250", "251-1K", "1K-5K", "5K-10K", "10K-50K", "50K-100K", "100K+"] as const;
export const COMPANY_TYPES = ["education", "government", "nonprofit", "private", "public", "personal"] as const;

export interface PersonRow {
  kind: "person";
  domain: string;
  email: string | null;
  emailType: "personal" | "generic" | null;
  firstName: string | null;
  lastName: string | null;
  fullName: string | null;
  position: string | null;
  department: string | null;
  seniority: string | null;
  country: string | null;
  gender: string | null;
  professionalNetworkUrl: string | null;
  microblog: string | null;
  phone: string | null;
  sourceUri: string | null;
}

export interface CompanyRow {
  kind: "company";
  domain: string;
  name: string | null;
  description: string | null;
  logo: string | null;
  industry: string | null;
  founded: string | null;
  employeeCount: number | null;
  companySize: string | null;
  revenue: string | null;
  companyType: string | null;
  country: string | null;
  state: string | null;
  city: string | null;
  streetAddress: string | null;
  postalCode: string | null;
  phone: string | null;
  linkedinUrl: string | null;
  twitterUrl: string | null;
  facebookUrl: string | null;
  instagramUrl: string | null;
  githubUrl: string | null;
  youtubeUrl: string | null;
  keywords: string[] | null;
  sameAs: string[] | null;
  technologies: string[] | null;
}

export interface PhoneRow {
  kind: "phone";
  domain: string;
  email: string | null;
  professionalNetworkUrl: string | null;
  phone: string;
  sourceUri: string | null;
}

export type ImportRow = PersonRow | CompanyRow | PhoneRow;
export type Checked = { ok: true; row: ImportRow } | { ok: false; reason: string };

class RowError extends Error {}

type Raw = Record<string, unknown>;

const MAX_TEXT = 2000;

/** Checks one raw row (keys are case-insensitive; `linkedin` and `twitter` are accepted as aliases). */
export function checkRow(input: Raw): Checked {
  try {
    const raw = lowerKeys(input);
    const kind = rowKind(raw);
    if (kind === "company") return { ok: true, row: companyRow(raw) };
    if (kind === "phone") return { ok: true, row: phoneRow(raw) };
    return { ok: true, row: personRow(raw) };
  } catch (err) {
    if (err instanceof RowError) return { ok: false, reason: err.message };
    throw err;
  }
}

function lowerKeys(raw: Raw): Raw {
  const out: Raw = {};
  for (const [k, v] of Object.entries(raw)) out[k.trim().toLowerCase()] = v;
  return out;
}

function rowKind(raw: Raw): ImportRow["kind"] {
  const declared = text(raw, "kind")?.toLowerCase();
  if (declared) {
    if (declared === "person" || declared === "company" || declared === "phone") return declared;
    throw new RowError(`kind must be person, company or phone (got '${declared}').`);
  }
  // Without an explicit kind, a row naming a person (or an address) is a person; a row that only
  // describes a domain is a company.
  const personish = ["email", "first_name", "last_name", "full_name", "linkedin", "professional_network"].some((k) => text(raw, k));
  return personish ? "person" : "company";
}

function personRow(raw: Raw): PersonRow {
  const emailText = text(raw, "email");
  const email = emailText ? checkedEmail(emailText) : null;
  const profileText = text(raw, "professional_network") ?? text(raw, "linkedin");
  const professionalNetworkUrl = profileText ? checkedProfile(profileText) : null;
  const domain = text(raw, "domain") ? checkedDomain(text(raw, "domain")!) : email ? checkedDomain(email.split("@")[1]!) : null;
  if (!domain) throw new RowError("a person needs an email or a domain.");
  if (email && !sameRegistrable(email.split("@")[1]!, domain)) throw new RowError(`email ${email} does not belong to domain ${domain}.`);
  if (!email && !professionalNetworkUrl) throw new RowError("a person needs an email or a profile URL to be found again.");
  const firstName = name(raw, "first_name");
  const lastName = name(raw, "last_name");
  const fullName = name(raw, "full_name") ?? (firstName && lastName ? `${firstName} ${lastName}` : null);
  const country = checkedCountry(text(raw, "country"));
  const typeText = text(raw, "type");
  if (typeText && typeText !== "personal" && typeText !== "generic") throw new RowError("type must be personal or generic.");
  return {
    kind: "person",
    domain,
    email,
    emailType: email ? ((typeText as "personal" | "generic" | undefined) ?? (firstName || lastName || fullName || !isRoleLocalPart(email.split("@")[0]!) ? "personal" : "generic")) : null,
    firstName,
    lastName,
    fullName,
    position: name(raw, "position"),
    department: oneOf(raw, "department", DEPARTMENTS),
    seniority: oneOf(raw, "seniority", SENIORITIES),
    country,
    gender: oneOf(raw, "gender", ["male", "female"] as const),
    professionalNetworkUrl,
    microblog: url(raw, "microblog") ?? url(raw, "twitter"),
    phone: text(raw, "phone") ? checkedPhone(text(raw, "phone")!, country) : null,
    sourceUri: url(raw, "source_uri"),
  };
}

function companyRow(raw: Raw): CompanyRow {
  const domainText = text(raw, "domain") ?? text(raw, "website_url") ?? text(raw, "website");
  if (!domainText) throw new RowError("a company needs a domain.");
  const domain = checkedDomain(domainText);
  const country = checkedCountry(text(raw, "country"));
  const employees = text(raw, "employee_count");
  let employeeCount: number | null = null;
  if (employees) {
    employeeCount = Number(employees.replace(/[, ]/g, ""));
    if (!Number.isInteger(employeeCount) || employeeCount < 0) throw new RowError("employee_count must be a whole number.");
  }
  const founded = text(raw, "founded");
  if (founded && !/^\d{4}(-\d{2}(-\d{2})?)?$/.test(founded)) throw new RowError("founded must be a year (YYYY) or a date (YYYY-MM-DD).");
  return {
    kind: "company",
    domain,
    name: name(raw, "name") ?? name(raw, "company") ?? name(raw, "organization"),
    description: name(raw, "description"),
    logo: url(raw, "logo"),
    industry: name(raw, "industry") ?? name(raw, "industries"),
    founded,
    employeeCount,
    companySize: oneOf(raw, "company_size", COMPANY_SIZES) ?? oneOf(raw, "size", COMPANY_SIZES),
    revenue: name(raw, "revenue"),
    companyType: oneOf(raw, "company_type", COMPANY_TYPES),
    country,
    state: name(raw, "state"),
    city: name(raw, "city"),
    streetAddress: name(raw, "street_address"),
    postalCode: name(raw, "postal_code"),
    phone: text(raw, "phone") ? checkedPhone(text(raw, "phone")!, country) : null,
    linkedinUrl: url(raw, "linkedin_url"),
    twitterUrl: url(raw, "twitter_url"),
    facebookUrl: url(raw, "facebook_url"),
    instagramUrl: url(raw, "instagram_url"),
    githubUrl: url(raw, "github_url"),
    youtubeUrl: url(raw, "youtube_url"),
    keywords: list(raw, "keywords"),
    sameAs: list(raw, "same_as")?.map((u) => checkedUrl(u, "same_as")) ?? null,
    technologies: list(raw, "technologies")?.map((t) => t.toLowerCase()) ?? null,
  };
}

function phoneRow(raw: Raw): PhoneRow {
  const emailText = text(raw, "email");
  const email = emailText ? checkedEmail(emailText) : null;
  const profileText = text(raw, "professional_network") ?? text(raw, "linkedin");
  const domain = text(raw, "domain") ? checkedDomain(text(raw, "domain")!) : email ? checkedDomain(email.split("@")[1]!) : null;
  if (!domain) throw new RowError("a phone needs a domain or an email.");
  const phoneText = text(raw, "phone");
  if (!phoneText) throw new RowError("a phone row needs phone.");
  return {
    kind: "phone",
    domain,
    email,
    professionalNetworkUrl: profileText ? checkedProfile(profileText) : null,
    phone: checkedPhone(phoneText, checkedCountry(text(raw, "country"))),
    sourceUri: url(raw, "source_uri"),
  };
}

function text(raw: Raw, key: string): string | null {
  const v = raw[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" && typeof v !== "number") throw new RowError(`${key} must be text.`);
  const s = String(v).trim();
  if (s.length > MAX_TEXT) throw new RowError(`${key} is longer than ${MAX_TEXT} characters.`);
  return s === "" ? null : s;
}

function name(raw: Raw, key: string): string | null {
  return text(raw, key)?.replace(/\s+/g, " ") ?? null;
}

function oneOf<T extends string>(raw: Raw, key: string, allowed: readonly T[]): T | null {
  const v = text(raw, key)?.toLowerCase();
  if (!v) return null;
  const hit = allowed.find((a) => a.toLowerCase() === v);
  if (!hit) throw new RowError(`${key} must be one of ${allowed.join(", ")}.`);
  return hit;
}

function list(raw: Raw, key: string): string[] | null {
  const v = raw[key];
  if (v === undefined || v === null || v === "") return null;
  const items = Array.isArray(v) ? v : typeof v === "string" ? v.split(/[;|]/) : null;
  if (!items || items.some((i) => typeof i !== "string")) throw new RowError(`${key} must be a list of text (separate CSV items with ; or |).`);
  const cleaned = (items as string[]).map((i) => i.trim()).filter(Boolean);
  return cleaned.length ? [...new Set(cleaned)] : null;
}

function url(raw: Raw, key: string): string | null {
  const v = text(raw, key);
  return v ? checkedUrl(v, key) : null;
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
  if (!email || !/^[^@\s"<>()]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new RowError(`'${value}' is not an email address.`);
  return email;
}

function checkedDomain(value: string): string {
  const host = value.trim().toLowerCase().replace(/^https?:\/\//, "").split(/[/?#]/)[0]!.replace(/^www\./, "");
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
  if (!/^[A-Z]{2}$/.test(upper) || !isSupportedCountry(upper)) throw new RowError(`country must be an ISO 3166 alpha-2 code (got '${value}').`);
  return upper;
}

function checkedPhone(value: string, country: string | null): string {
  try {
    const parsed = parsePhoneNumberWithError(value, (country ?? undefined) as CountryCode | undefined);
    if (parsed.isValid()) return parsed.number;
  } catch {}
  throw new RowError(`'${value}' is not a valid phone number${country ? ` for ${country}` : " (use +<country code> or set country)"}.`);
}

/**
 * CSV as written by spreadsheets (RFC 4180: quoted fields, doubled quotes, CRLF); the first line
 * names the columns. Returns one object per data line with its 1-based line number.
 */
export function parseCsv(textIn: string): { line: number; row: Raw }[] {
  const records: { line: number; fields: string[] }[] = [];
  let field = "";
  let fields: string[] = [];
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  const s = textIn.replace(/^\uFEFF/, "");
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else {
        if (ch === "\n") line++;
        field += ch;
      }
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") fields.push(field), (field = "");
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && s[i + 1] === "\n") i++;
      fields.push(field);
      records.push({ line: recordLine, fields });
      fields = [];
      field = "";
      line++;
      recordLine = line;
    } else field += ch;
  }
  if (field !== "" || fields.length) fields.push(field), records.push({ line: recordLine, fields });
  const nonEmpty = records.filter((r) => r.fields.some((f) => f.trim() !== ""));
  const [header, ...data] = nonEmpty;
  if (!header) return [];
  const names = header.fields.map((h) => h.trim().toLowerCase());
  return data.map((r) => ({ line: r.line, row: Object.fromEntries(names.map((n, i) => [n, r.fields[i] ?? ""])) }));
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
  const parsed = format === "csv" ? parseCsv(content).map((r) => ({ ...r, error: undefined as string | undefined })) : parseNdjson(content);
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
