import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// All instants are stored as Unix milliseconds (UTC) and rendered as RFC 3339 at the edge of the API.

export const accounts = sqliteTable("accounts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  email: text("email").notNull().unique(),
  firstName: text("first_name"),
  lastName: text("last_name"),
  /** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`; null for accounts created without a password. */
  passwordHash: text("password_hash"),
  confirmed: integer("confirmed", { mode: "boolean" }).notNull().default(false),
  blocked: integer("blocked", { mode: "boolean" }).notNull().default(false),
  plan: text("plan").notNull().default("free"),
  /** Null means the subscription never expires (free plan). */
  subscriptionExpiresAt: integer("subscription_expires_at"),
  /** Marks system accounts (e.g. the shared agents account) that no key can log in as. */
  kind: text("kind").notNull().default("user"),
  createdAt: integer("created_at").notNull().default(sql`(unixepoch() * 1000)`),
});

export const workspaces = sqliteTable("workspaces", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  ownerAccountId: integer("owner_account_id")
    .notNull()
    .references(() => accounts.id),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull().default(sql`(unixepoch() * 1000)`),
});

/** A member acts on the owner's account: credits, limits and usage are the owner's. */
export const workspaceMembers = sqliteTable(
  "workspace_members",
  {
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    accountId: integer("account_id")
      .notNull()
      .unique()
      .references(() => accounts.id),
    role: text("role").notNull().default("member"),
    createdAt: integer("created_at").notNull().default(sql`(unixepoch() * 1000)`),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.accountId] })],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    /** Public identifier sent as X-Service-Key. */
    publicKey: text("public_key").notNull().unique(),
    /** SHA-256 (hex) of the secret; the secret itself is shown once and never stored. */
    secretHash: text("secret_hash").notNull(),
    expiresAt: integer("expires_at"),
    lastUsedAt: integer("last_used_at"),
    createdAt: integer("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    updatedAt: integer("updated_at").notNull().default(sql`(unixepoch() * 1000)`),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("api_keys_account_idx").on(t.accountId)],
);

export const requestLogs = sqliteTable(
  "request_logs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The billed (owner) account. */
    accountId: integer("account_id").notNull(),
    /** The account that made the call (differs from accountId for workspace members). */
    actorAccountId: integer("actor_account_id").notNull(),
    apiKeyId: integer("api_key_id"),
    httpMethod: text("http_method").notNull(),
    endpoint: text("endpoint").notNull(),
    uri: text("uri").notNull(),
    statusCode: integer("status_code").notNull(),
    durationMs: integer("duration_ms").notNull(),
    /** Human label of the endpoint group, e.g. "Email Finder". */
    type: text("type"),
    /** Usage bucket counted by /v1/usage (search, verifier, phones, ...), null if the call is free. */
    usageCategory: text("usage_category"),
    cost: integer("cost", { mode: "boolean" }).notNull().default(false),
    /** Which surface made the call: api (/v1), website (the dashboard, through /v1), agent (paid per request) or bulk (a bulk job's row). */
    source: text("source", { enum: ["api", "website", "agent", "bulk"] })
      .notNull()
      .default("api"),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    country: text("country"),
    /** The OAuth client that made the request with a bearer token; null for key + secret. */
    oauthClientId: text("oauth_client_id"),
    createdAt: integer("created_at").notNull(),
    /** Set by the request-logs queue writer; unique, so a redelivered batch inserts nothing twice. */
    requestId: text("request_id"),
  },
  (t) => [
    index("request_logs_account_created_idx").on(t.accountId, t.createdAt),
    uniqueIndex("request_logs_request_id_idx").on(t.requestId),
  ],
);

export type Account = typeof accounts.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
export type RequestLog = typeof requestLogs.$inferSelect;

/** An invitation to act on an owner's account (src/account/team.ts); the mailed token's SHA-256 only. */
export const teamInvitations = sqliteTable(
  "team_invitations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tokenHash: text("token_hash").notNull(),
    ownerAccountId: integer("owner_account_id")
      .notNull()
      .references(() => accounts.id),
    email: text("email").notNull(),
    /** admin | member */
    role: text("role", { enum: ["admin", "member"] }).notNull(),
    invitedBy: integer("invited_by").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    acceptedAt: integer("accepted_at"),
  },
  (t) => [
    uniqueIndex("team_invitations_token_idx").on(t.tokenHash),
    index("team_invitations_owner_idx").on(t.ownerAccountId),
  ],
);

/** What an account bought with MPP (src/agent/routes/purchases.ts): its receipts. */
export const purchases = sqliteTable(
  "purchases",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    /** The owner who paid (a team's billing is the owner's). */
    actorAccountId: integer("actor_account_id").notNull(),
    /** `pack-10k`, `plan:basic` */
    item: text("item").notNull(),
    description: text("description").notNull(),
    credits: integer("credits").notNull().default(0),
    /** Display units ("149"). */
    amount: text("amount").notNull(),
    /** USDC or USDT. */
    currency: text("currency").notNull(),
    method: text("method").notNull(),
    /** The payment's reference (the receipt's). */
    reference: text("reference").notNull(),
    challengeId: text("challenge_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("purchases_challenge_idx").on(t.challengeId),
    index("purchases_account_idx").on(t.accountId, t.createdAt),
  ],
);
