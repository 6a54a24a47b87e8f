import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The contact index: what the crawler found on public pages and what operators imported.
 * Every row says where it came from (`source`: "crawl" | "import"); nothing here is invented.
 * Instants are Unix milliseconds (UTC).
 */

export const domains = sqliteTable("domains", {
  domain: text("domain").primaryKey(),
  /** "pending" | "crawling" | "done" | "failed" */
  crawlStatus: text("crawl_status").notNull().default("pending"),
  crawledAt: integer("crawled_at"),
  pagesCrawled: integer("pages_crawled").notNull().default(0),
  lastError: text("last_error"),
  /** Catch-all verdict when an SMTP prober has given one; null = unknown. */
  acceptAll: integer("accept_all", { mode: "boolean" }),
  /**
   * JSON: the domain's address formats as read with its people's names at the last crawl (shares,
   * spelling habits, confidence) and the conventions its pages state. Null before the first crawl
   * that found a named address; readers then infer from the rows (src/engine/index/read.ts).
   */
  formats: text("formats"),
  updatedAt: integer("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
});

export const companies = sqliteTable(
  "companies",
  {
    domain: text("domain").primaryKey(),
    name: text("name"),
    description: text("description"),
    logo: text("logo"),
    industry: text("industry"),
    founded: text("founded"),
    employeeCount: integer("employee_count"),
    companySize: text("company_size"),
    revenue: text("revenue"),
    companyType: text("company_type"),
    country: text("country"),
    state: text("state"),
    city: text("city"),
    streetAddress: text("street_address"),
    postalCode: text("postal_code"),
    phone: text("phone"),
    linkedinUrl: text("linkedin_url"),
    twitterUrl: text("twitter_url"),
    facebookUrl: text("facebook_url"),
    instagramUrl: text("instagram_url"),
    githubUrl: text("github_url"),
    youtubeUrl: text("youtube_url"),
    /** JSON array of strings. */
    keywords: text("keywords"),
    /** JSON array of sameAs URLs from JSON-LD. */
    sameAs: text("same_as"),
    /** JSON array of technology slugs (src/engine/company/technology.ts fingerprints, or imported). */
    technologies: text("technologies"),
    source: text("source").notNull().default("crawl"),
    updatedAt: integer("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [index("companies_name_idx").on(t.name), index("companies_lower_name_idx").on(sql`lower(${t.name})`)],
);

export const people = sqliteTable(
  "people",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    domain: text("domain").notNull(),
    email: text("email"),
    firstName: text("first_name"),
    lastName: text("last_name"),
    fullName: text("full_name"),
    position: text("position"),
    department: text("department"),
    seniority: text("seniority"),
    country: text("country"),
    gender: text("gender"),
    /** Profile URL on the professional network (the `linkedin` field in clients). */
    professionalNetworkUrl: text("professional_network_url"),
    microblog: text("microblog"),
    phone: text("phone"),
    source: text("source").notNull().default("crawl"),
    sourceUri: text("source_uri"),
    updatedAt: integer("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    index("people_domain_idx").on(t.domain),
    uniqueIndex("people_email_idx").on(t.email),
    index("people_profile_idx").on(t.professionalNetworkUrl),
  ],
);

export const emails = sqliteTable(
  "emails",
  {
    email: text("email").primaryKey(),
    domain: text("domain").notNull(),
    localPart: text("local_part").notNull(),
    /** "personal" | "generic" */
    type: text("type").notNull(),
    firstName: text("first_name"),
    lastName: text("last_name"),
    /** Middle name or initial when the reading has one (needed for {f}{m}{last}). */
    middleName: text("middle_name"),
    /**
     * The owner's name as the page showed it ("TANAKA Hiroshi", "Clara Dubois"); first/middle/last
     * are its reading decided over all the domain's addresses (src/engine/index/domain-names.ts).
     */
    displayName: text("display_name"),
    /** What kind of name evidence the row holds: "shown", "shown-family-first" (page in a family-name-first language) or "stated" (vCard N, JSON-LD). */
    nameCue: text("name_cue"),
    position: text("position"),
    department: text("department"),
    seniority: text("seniority"),
    source: text("source").notNull().default("crawl"),
    firstSeenAt: integer("first_seen_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
  },
  (t) => [index("emails_domain_idx").on(t.domain, t.email)],
);

export const emailSources = sqliteTable(
  "email_sources",
  {
    email: text("email").notNull(),
    uri: text("uri").notNull(),
    websiteUrl: text("website_url").notNull(),
    extractedOn: integer("extracted_on").notNull(),
    lastSeenOn: integer("last_seen_on").notNull(),
    stillOnPage: integer("still_on_page", { mode: "boolean" }).notNull().default(true),
  },
  (t) => [primaryKey({ columns: [t.email, t.uri] }), index("email_sources_uri_idx").on(t.uri)],
);

export const phones = sqliteTable(
  "phones",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    domain: text("domain").notNull(),
    /** Set when the number belongs to a person rather than the company. */
    email: text("email"),
    professionalNetworkUrl: text("professional_network_url"),
    e164: text("e164").notNull(),
    sourceUri: text("source_uri"),
    source: text("source").notNull().default("crawl"),
    firstSeenAt: integer("first_seen_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
  },
  (t) => [index("phones_domain_idx").on(t.domain), uniqueIndex("phones_unique_idx").on(t.domain, t.e164, t.email)],
);

/** Removal requests: an email, phone or profile its owner asked us to stop serving. */
export const claims = sqliteTable(
  "claims",
  {
    /** "email" | "phone" | "linkedin" */
    kind: text("kind").notNull(),
    /** Normalised: lowercase email, E.164 phone, canonical profile URL. */
    value: text("value").notNull(),
    reason: text("reason"),
    createdAt: integer("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.kind, t.value] })],
);
