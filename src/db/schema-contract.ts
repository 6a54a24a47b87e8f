import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Billing memory (migration 0009). `billed_requests`: when each distinct request
 * (capability + normalised parameters) was last billed to an account, so a repeat within 30 days
 * is free. `usage_days`: charged calls per account, UTC day, capability and source, read by
 * /v1/usage (the request log keeps only 1,000 rows, too few for usage history).
 */
export const billedRequests = sqliteTable(
  "billed_requests",
  {
    accountId: integer("account_id").notNull(),
    /** SHA-256 hex of the capability name and its normalised parameters. */
    fingerprint: text("fingerprint").notNull(),
    billedAt: integer("billed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.fingerprint] }), index("billed_requests_billed_at_idx").on(t.billedAt)],
);

export const usageDays = sqliteTable(
  "usage_days",
  {
    accountId: integer("account_id").notNull(),
    /** Start of the UTC day, Unix ms. */
    day: integer("day").notNull(),
    /** Capability name, e.g. "email-finder". */
    capability: text("capability").notNull(),
    /** api | bulk (agent-surface calls are paid per request and use no credits). */
    source: text("source").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.capability, t.source] })],
);
