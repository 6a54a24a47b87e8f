import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

// The one delivery system (src/delivery): per-account Standard Webhooks secrets and the attempt log.
// Migration: migrations/0005_leads_webhooks_deliveries.sql.

/** One `whsec_...` secret per account and scope ("webhooks" signs save_lead and callbacks, "bulk" signs bulk end events). */
export const signingSecrets = sqliteTable(
  "signing_secrets",
  {
    accountId: integer("account_id").notNull(),
    scope: text("scope").notNull(),
    secret: text("secret").notNull(),
    createdAt: integer("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    rotatedAt: integer("rotated_at"),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.scope] })],
);

/** One row per delivery attempt (and one `dead_lettered` row when the queue gives up). */
export const deliveryAttempts = sqliteTable(
  "delivery_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deliveryId: text("delivery_id").notNull(),
    accountId: integer("account_id").notNull(),
    webhookId: integer("webhook_id"),
    kind: text("kind").notNull(),
    url: text("url").notNull(),
    attempt: integer("attempt").notNull(),
    /** delivered | failed | skipped | dead_lettered */
    outcome: text("outcome").notNull(),
    responseCode: integer("response_code"),
    durationMs: integer("duration_ms").notNull().default(0),
    error: text("error"),
    createdAt: integer("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    index("delivery_attempts_webhook_idx").on(t.accountId, t.webhookId, t.id),
    index("delivery_attempts_delivery_idx").on(t.deliveryId),
  ],
);
export type DeliveryAttemptRow = typeof deliveryAttempts.$inferSelect;
