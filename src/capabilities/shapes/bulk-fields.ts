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
    headerSynonyms: ["domain", "domain name", "website", "website url", "company domain", "company website", "site", "url", "web"],
    legacyColumn: "column_domain",
  },
  company: {
    param: "company",
    field: "company_name_field_index",
    label: "Company name",
    headerSynonyms: ["company", "company name", "organization", "organisation", "organization name", "employer", "account name"],
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
  find_phones: { name: "find_phones", kind: "boolean", legacyName: "phone", description: "Also look up phone numbers (enrich_mobile; phone credits per number found)" },
  find_all_phones: { name: "find_all_phones", kind: "boolean", legacyName: "full", description: "Every stored phone number of the row instead of the first" },
  skip_rows_with_email: { name: "skip_rows_with_email", kind: "boolean", legacyName: "skip", description: "Rows whose email column is already filled are skipped (not run, not billed)" },
  max_emails_per_domain: { name: "max_emails_per_domain", kind: "integer", legacyName: "maximum", description: "At most this many addresses per domain (1, 5, 10, 20, 50 or 100)" },
  email_type: { name: "email_type", kind: "string", description: "all, personal or generic" },
  email_type_mode: { name: "email_type_mode", kind: "string", description: "only or priority" },
  departments: { name: "departments", kind: "string[]", description: "Departments to keep" },
  departments_mode: { name: "departments_mode", kind: "string", description: "only or exclude" },
  include_sources: { name: "include_sources", kind: "boolean", legacyName: "sources", description: "Add the pages each address was seen on to the result rows" },
} satisfies Record<string, BulkOption>;

/** Copies the cells that are set, by parameter name. */
export function pick(cells: Record<string, string>, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (cells[n]) out[n] = cells[n];
  return out;
}

export const flag = (options: BulkOptionValues, name: string) => options[name] === true;
