import { isRoleLocalPart } from "../../engine/data/domain-lists.js";
import type { BulkField, BulkOption, BulkOptionValues } from "../core/registry.js";

/**
 * Input columns shared by several bulk types. Each capability's `bulk` declaration picks the ones
 * it reads; header synonyms are compared after lower-casing and dropping spaces, dashes and underscores.
 */
export const BULK_FIELDS = {
  domain: {
    param: "domain",
    field: "domain_field_index",
    label: "Domain",
    headerSynonyms: [
      "domain",
      "domain name",
      "website",
      "website url",
      "company domain",
      "company website",
      "site",
      "url",
      "web",
    ],
    legacyColumn: "column_domain",
  },
  company: {
    param: "company",
    field: "company_name_field_index",
    label: "Company name",
    headerSynonyms: [
      "company",
      "company name",
      "organization",
      "organisation",
      "organization name",
      "employer",
      "account name",
    ],
    legacyColumn: "column_company",
  },
  first_name: {
    param: "first_name",
    field: "first_name_field_index",
    label: "First name",
    headerSynonyms: ["first name", "firstname", "first", "given name", "forename", "prenom"],
    legacyColumn: "column_first",
  },
  last_name: {
    param: "last_name",
    field: "last_name_field_index",
    label: "Last name",
    headerSynonyms: ["last name", "lastname", "last", "surname", "family name", "nom"],
    legacyColumn: "column_last",
  },
  full_name: {
    param: "full_name",
    field: "full_name_field_index",
    label: "Full name",
    headerSynonyms: ["full name", "fullname", "name", "person", "contact name", "contact"],
    legacyColumn: "column_name",
  },
  email: {
    param: "email",
    field: "email_field_index",
    label: "Email",
    headerSynonyms: ["email", "email address", "e-mail", "mail", "work email", "business email"],
    legacyColumn: "column_email",
  },
  linkedin: {
    param: "url",
    field: "linkedin_url_field_index",
    label: "Profile URL",
    headerSynonyms: ["linkedin", "linkedin url", "linkedin profile", "profile url", "profile", "professional network"],
    legacyColumn: "column_linkedin",
  },
  url: {
    param: "url",
    field: "url_field_index",
    label: "Article URL",
    headerSynonyms: ["url", "article url", "article", "link", "page", "post url"],
    legacyColumn: "column_url",
  },
  phone: {
    param: "phone",
    field: "phone_field_index",
    label: "Phone number",
    headerSynonyms: ["phone", "phone number", "telephone", "tel", "mobile", "mobile phone", "number"],
    legacyColumn: "column_phone",
  },
  country: {
    param: "country_code",
    field: "country_field_index",
    label: "Country",
    headerSynonyms: ["country", "country code", "iso country", "country iso"],
    legacyColumn: "column_country",
  },
} satisfies Record<string, BulkField>;

/** Options shared by several bulk types. */
export const BULK_OPTIONS = {
  find_phones: {
    name: "find_phones",
    kind: "boolean",
    legacyName: "phone",
    description:
      "Also look up phone numbers (enrich_mobile; phone credits per number found); adds the phone and phone_type columns",
  },
  find_all_phones: {
    name: "find_all_phones",
    kind: "boolean",
    legacyName: "full",
    description: "Every stored phone number of the row instead of the first (one phone credit per number)",
  },
  skip_rows_with_email: {
    name: "skip_rows_with_email",
    kind: "boolean",
    legacyName: "skip",
    description: "Rows whose email column is already filled are skipped (not run, not billed)",
  },
  max_emails_per_domain: {
    name: "max_emails_per_domain",
    kind: "integer",
    legacyName: "maximum",
    description: "At most this many addresses per domain (1, 5, 10, 20, 50 or 100)",
  },
  email_type: {
    name: "email_type",
    kind: "string",
    description: "all, personal or generic (a generic address is a role account: info@, sales@...)",
  },
  email_type_mode: {
    name: "email_type_mode",
    kind: "string",
    description:
      "only (default): addresses of another type are withheld, not billed; priority: the type comes first, nothing is withheld",
  },
  departments: {
    name: "departments",
    kind: "string[]",
    description: "Departments (one or several: engineering, sales, finance, hr, it, marketing, ...)",
  },
  departments_mode: {
    name: "departments_mode",
    kind: "string",
    description:
      "only (default): keep these departments; exclude: withhold these; priority: these come first, nothing is withheld",
  },
  verify_emails: {
    name: "verify_emails",
    kind: "boolean",
    legacyName: "verify",
    description:
      "Verify each address found (default true); false skips the verifier: verification columns stay empty and scores rest on the evidence alone",
  },
  boost_score_from_sources: {
    name: "boost_score_from_sources",
    kind: "boolean",
    legacyName: "valid",
    description:
      "Score an address seen on the domain's pages above one built from its format (default true); false scores both from the format",
  },
  include_sources: {
    name: "include_sources",
    kind: "boolean",
    legacyName: "sources",
    description: "Add the pages each address was seen on to the result rows",
  },
} satisfies Record<string, BulkOption>;

/** Copies the cells that are set, by parameter name. */
export function pick(cells: Record<string, string>, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (cells[n]) out[n] = cells[n];
  return out;
}

export const flag = (options: BulkOptionValues, name: string) => options[name] === true;

/** A found address as the job's filters judge it. */
export interface FoundAddress {
  email: string | null;
  type?: string | null;
  department?: string | null;
}

/** personal, or generic for a role account (info@, sales@, ...), as Domain Search classifies addresses. */
export function emailTypeOf(email: string): "personal" | "generic" {
  return isRoleLocalPart(email.split("@")[0] ?? "") ? "generic" : "personal";
}

const listOf = (value: BulkOptionValues[string]) =>
  Array.isArray(value) ? value : typeof value === "string" && value ? [value] : [];

/**
 * Why the job's email_type and departments options withhold an address (mode `only` keeps the
 * listed kind, `exclude` drops the listed departments; `priority` withholds nothing), or null.
 */
export function withheldBecause(found: FoundAddress, options: BulkOptionValues): string | null {
  if (!found.email) return null;
  const wanted = options.email_type;
  const type = found.type ?? emailTypeOf(found.email);
  if (
    (wanted === "personal" || wanted === "generic") &&
    (options.email_type_mode ?? "only") === "only" &&
    type !== wanted
  ) {
    return `the address found is ${type}; email_type=${wanted} keeps only ${wanted} addresses`;
  }
  const departments = listOf(options.departments);
  if (departments.length) {
    const mode = options.departments_mode ?? "only";
    const department = found.department ?? null;
    if (mode === "only" && (!department || !departments.includes(department))) {
      return `the person's department is ${department ?? "unknown"}; departments=${departments.join(",")} keeps only those`;
    }
    if (mode === "exclude" && department && departments.includes(department))
      return `the person's department (${department}) is excluded (departments_mode=exclude)`;
  }
  return null;
}

/** Addresses in the order the priority modes ask for: the wanted type first, then the listed departments first (stable otherwise). */
export function inPriorityOrder<T extends FoundAddress>(found: T[], options: BulkOptionValues): T[] {
  const wanted =
    options.email_type_mode === "priority" && (options.email_type === "personal" || options.email_type === "generic")
      ? options.email_type
      : null;
  const departments = options.departments_mode === "priority" ? listOf(options.departments) : [];
  const rank = (f: T) =>
    (wanted && (f.type ?? (f.email ? emailTypeOf(f.email) : null)) !== wanted ? 2 : 0) +
    (departments.length && !(f.department && departments.includes(f.department)) ? 1 : 0);
  return found
    .map((f, i) => ({ f, i, r: rank(f) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.f);
}
