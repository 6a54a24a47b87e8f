import { sql } from "drizzle-orm";
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Device authorization requests (RFC 8628). Clients, grants and tokens live in KV, owned by
 * @cloudflare/workers-oauth-provider; the library has no device flow, so its state lives here.
 * An approved row carries a one-time authorization code the library issued for the device, which the
 * next poll redeems (with the PKCE verifier kept beside it) and then deletes.
 */
export const oauthDeviceCodes = sqliteTable(
  "oauth_device_codes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** SHA-256 (hex) of the device_code; the code itself is only ever held by the device. */
    deviceCodeHash: text("device_code_hash").notNull(),
    /** What the person types, stored normalised (8 letters, no dash). */
    userCode: text("user_code").notNull(),
    clientId: text("client_id").notNull(),
    /** Space-separated scopes requested by the device. */
    scope: text("scope").notNull(),
    status: text("status", { enum: ["pending", "approved", "denied"] })
      .notNull()
      .default("pending"),
    accountId: integer("account_id"),
    authorizationCode: text("authorization_code"),
    codeVerifier: text("code_verifier"),
    redirectUri: text("redirect_uri"),
    /** Minimum seconds between polls; raised by 5 on every slow_down (RFC 8628 §3.5). */
    intervalSeconds: integer("interval_seconds").notNull(),
    lastPolledAt: integer("last_polled_at"),
    expiresAt: integer("expires_at").notNull(),
    createdAt: integer("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [
    uniqueIndex("oauth_device_codes_device_code_idx").on(t.deviceCodeHash),
    uniqueIndex("oauth_device_codes_user_code_idx").on(t.userCode),
  ],
);

export type OAuthDeviceCode = typeof oauthDeviceCodes.$inferSelect;
