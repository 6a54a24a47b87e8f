import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Leads, lead lists, lead attributes, webhook configurations and flags (src/leads).
// Migration: migrations/0005_leads_webhooks_deliveries.sql. `*_key` columns hold the lowercased
// value that uniqueness is checked on.

const createdAt = () => integer("created_at").notNull().default(sql`(unixepoch() * 1000)`);
const updatedAt = () => integer("updated_at").notNull().default(sql`(unixepoch() * 1000)`);

export const webhooks = sqliteTable(
  "webhooks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id").notNull(),
    name: text("name").notNull(),
    nameKey: text("name_key").notNull(),
    url: text("url").notNull(),
    method: text("method").notNull().default("POST"),
    /** JSON object of extra headers sent with every delivery. */
    headers: text("headers").notNull().default("{}"),
    /** enabled | disabled */
    status: text("status").notNull().default("enabled"),
    event: text("event").notNull().default("save_lead"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("webhooks_account_name_idx").on(t.accountId, t.nameKey)],
);
export type WebhookRow = typeof webhooks.$inferSelect;

export const leadLists = sqliteTable(
  "lead_lists",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id").notNull(),
    name: text("name").notNull(),
    nameKey: text("name_key").notNull(),
    favorite: integer("favorite", { mode: "boolean" }).notNull().default(false),
    type: text("type").notNull().default("campaigns"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("lead_lists_account_name_idx").on(t.accountId, t.nameKey)],
);
export type LeadListRow = typeof leadLists.$inferSelect;

export const leadAttributes = sqliteTable(
  "lead_attributes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id").notNull(),
    name: text("name").notNull(),
    /** Read-only slug of the name, the key of the attribute in a lead's `attributes`. */
    identifier: text("identifier").notNull(),
    /** string | date | number */
    type: text("type").notNull().default("string"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("lead_attributes_account_identifier_idx").on(t.accountId, t.identifier)],
);
export type LeadAttributeRow = typeof leadAttributes.$inferSelect;

export const leads = sqliteTable(
  "leads",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id").notNull(),
    email: text("email").notNull(),
    emailKey: text("email_key").notNull(),
    /** Domain of the email, for the `domain` filter. */
    domain: text("domain").notNull(),
    listId: integer("list_id"),
    firstName: text("first_name"),
    lastName: text("last_name"),
    country: text("country"),
    websiteUrl: text("website_url"),
    company: text("company"),
    position: text("position"),
    phoneNumber: text("phone_number"),
    microblog: text("microblog"),
    professionalNetwork: text("professional_network"),
    notes: text("notes"),
    score: integer("score"),
    leadSource: text("lead_source"),
    /** JSON object: attribute identifier -> value. */
    attributes: text("attributes").notNull().default("{}"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("leads_account_email_idx").on(t.accountId, t.emailKey),
    index("leads_account_list_idx").on(t.accountId, t.listId),
    index("leads_account_domain_idx").on(t.accountId, t.domain),
  ],
);
export type LeadRow = typeof leads.$inferSelect;

export const flags = sqliteTable(
  "flags",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id").notNull(),
    flagType: text("flag_type").notNull(),
    value: text("value").notNull(),
    reason: text("reason").notNull(),
    comment: text("comment"),
    ipAddress: text("ip_address"),
    createdAt: createdAt(),
  },
  (t) => [index("flags_account_idx").on(t.accountId, t.id)],
);
