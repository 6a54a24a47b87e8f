import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./schema.js";

/**
 * Signed-in browser sessions of the dashboard (/app). The cookie holds a random token; only its
 * SHA-256 is kept here. A session lives until `expires_at`, which each use moves forward (idle
 * timeout) up to an absolute limit from `created_at` (src/auth/browser-session.ts).
 */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    userAgent: text("user_agent"),
  },
  (t) => [
    index("dashboard_sessions_account_idx").on(t.accountId),
    index("dashboard_sessions_expires_idx").on(t.expiresAt),
  ],
);

/** One-time links mailed to an account holder: confirm the address, reset the password, or confirm a new address. */
export const accountTokens = sqliteTable(
  "account_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    purpose: text("purpose", { enum: ["confirm", "reset", "email"] }).notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    /** Purpose `email`: the address the link sets (0014). */
    newEmail: text("new_email"),
  },
  (t) => [
    index("account_tokens_account_idx").on(t.accountId, t.purpose),
    index("account_tokens_expires_idx").on(t.expiresAt),
  ],
);

export type DashboardSession = typeof dashboardSessions.$inferSelect;
export type AccountToken = typeof accountTokens.$inferSelect;
