import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

// SMTP checks through the prober (migrations/0016_smtp_checks.sql says what each table is for).

/** The last answer of the prober per address (a ProbeResult as JSON). */
export const smtpChecks = sqliteTable(
  "smtp_checks",
  {
    email: text("email").primaryKey(),
    domain: text("domain").notNull(),
    result: text("result").notNull(),
    checkedAt: integer("checked_at").notNull(),
    /** Set while the answer is deferred (greylisted, paced): when the background retry runs. */
    retryAt: integer("retry_at"),
    attempts: integer("attempts").notNull().default(1),
  },
  (t) => [index("smtp_checks_retry_idx").on(t.retryAt)],
);

/** Per domain: the accept-all test and the formats the checks ruled out. */
export const smtpDomains = sqliteTable("smtp_domains", {
  domain: text("domain").primaryKey(),
  /** The random local part of the accept-all test, kept so a retry meets the same address. */
  probeLocal: text("probe_local").notNull(),
  acceptAll: integer("accept_all", { mode: "boolean" }),
  checkedAt: integer("checked_at"),
  /**
   * JSON object: format → what checks that rejected someone's address in it left of its weight
   * (candidates.ts RuleOuts); an array (as stored before) lists formats ruled out fully.
   */
  ruledOut: text("ruled_out").notNull().default("[]"),
  /**
   * Whether a first check's "no such mailbox" can be believed here (smtp-domains.ts): null until
   * tested with an address the domain's pages publish, false when that one read nonexistent too.
   */
  rejectionsTrusted: integer("rejections_trusted", { mode: "boolean" }),
});

/** Finder searches that wait on a deferred check, run again in the background when due. */
export const smtpPendingFinds = sqliteTable(
  "smtp_pending_finds",
  {
    domain: text("domain").notNull(),
    nameKey: text("name_key").notNull(),
    /** The PersonName as JSON. */
    name: text("name").notNull(),
    dueAt: integer("due_at").notNull(),
    attempts: integer("attempts").notNull().default(1),
  },
  (t) => [primaryKey({ columns: [t.domain, t.nameKey] }), index("smtp_pending_finds_due_idx").on(t.dueAt)],
);

/** Per domain whose format the index knows: its leading format, by country (format-tallies.ts). */
export const domainFormats = sqliteTable("domain_formats", {
  domain: text("domain").primaryKey(),
  /** ISO country of the domain (its TLD), "" when none. */
  country: text("country").notNull(),
  pattern: text("pattern").notNull(),
  /** Where the format was learnt: "page" (addresses read on the site), "smtp_check" or "web_evidence". */
  source: text("source").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** How many domains use each format, per country ("*" = every country), kept with domain_formats. */
export const formatTallies = sqliteTable(
  "format_tallies",
  {
    country: text("country").notNull(),
    pattern: text("pattern").notNull(),
    domains: integer("domains").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.country, t.pattern] })],
);
