import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Index of bulk jobs for listing and stats. Each job's own BulkJob object is the source of truth;
 * it rewrites its row here on every state change and as chunks finish.
 */
export const bulkJobs = sqliteTable(
  "bulk_jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id").notNull(),
    type: text("type").notNull(),
    name: text("name").notNull(),
    status: text("status", { enum: ["pending", "running", "completed", "failed", "cancelled"] }).notNull(),
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    rowsInput: integer("rows_input").notNull().default(0),
    rowsProcessed: integer("rows_processed").notNull().default(0),
    found: integer("found").notNull().default(0),
    emailsFound: integer("emails_found").notNull().default(0),
    creditsSearch: integer("credits_search").notNull().default(0),
    creditsVerify: integer("credits_verify").notNull().default(0),
    creditsPhone: integer("credits_phone").notNull().default(0),
    /** The job as last rendered by its object (config, metrics, dates), for list pages. */
    snapshot: text("snapshot", { mode: "json" }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    expiredAt: integer("expired_at").notNull(),
  },
  (t) => [
    index("bulk_jobs_account_type_created_idx").on(t.accountId, t.type, t.createdAt),
    index("bulk_jobs_account_status_idx").on(t.accountId, t.type, t.status),
  ],
);

export type BulkJobRow = typeof bulkJobs.$inferSelect;
