import { eq, inArray, sql } from "drizzle-orm";
import { db } from "../db/client.js";
import { accounts, apiKeys, requestLogs, workspaceMembers, workspaces } from "../db/schema.js";
import { bulkJobs } from "../db/schema-bulk.js";
import { accountTokens, dashboardSessions } from "../db/schema-dashboard.js";
import { deliveryAttempts, signingSecrets } from "../db/schema-delivery.js";
import { flags, leadAttributes, leadLists, leads, webhooks } from "../db/schema-leads.js";
import { normaliseEmail } from "./account-records.js";

/**
 * An account's own data, for the settings page: the export a holder downloads, the change of email
 * address, and the deletion. What deletion keeps, and why (docs/dashboard.md, "Settings"): request
 * logs and billing records stay until their retention ends (the hourly cron: logs after 3 months,
 * billed requests after their 30-day window), under an account row that no longer says who it was.
 */

/** Sets the account's address; false when another account has it. */
export async function setEmail(d1: D1Database, accountId: number, email: string): Promise<boolean> {
  try {
    await db(d1)
      .update(accounts)
      .set({ email: normaliseEmail(email) })
      .where(eq(accounts.id, accountId))
      .run();
    return true;
  } catch (err) {
    if (/UNIQUE/i.test(String(err))) return false;
    throw err;
  }
}

/** Everything the account holds, as one JSON document (no secret, no hash). */
export async function exportAccount(d1: D1Database, accountId: number, now = Date.now()) {
  const store = db(d1);
  const mine = <T extends { accountId: unknown }>(t: T) => eq(t.accountId as never, accountId);
  const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);
  const [[account], keys, leadRows, lists, attributes, hooks, flagRows, jobs, logs] = await Promise.all([
    store.select().from(accounts).where(eq(accounts.id, accountId)).limit(1),
    store.select().from(apiKeys).where(mine(apiKeys)),
    store.select().from(leads).where(mine(leads)),
    store.select().from(leadLists).where(mine(leadLists)),
    store.select().from(leadAttributes).where(mine(leadAttributes)),
    store.select().from(webhooks).where(mine(webhooks)),
    store.select().from(flags).where(mine(flags)),
    store.select().from(bulkJobs).where(mine(bulkJobs)),
    store.select().from(requestLogs).where(mine(requestLogs)),
  ]);
  if (!account) return null;
  return {
    exported_at: iso(now),
    account: {
      id: account.id,
      email: account.email,
      first_name: account.firstName,
      last_name: account.lastName,
      plan: account.plan,
      confirmed: account.confirmed,
      created_at: iso(account.createdAt),
    },
    api_keys: keys.map((k) => ({
      id: k.id,
      name: k.name,
      key: k.publicKey,
      created_at: iso(k.createdAt),
      expires_at: iso(k.expiresAt),
      last_used_at: iso(k.lastUsedAt),
      revoked_at: iso(k.revokedAt),
    })),
    leads: leadRows,
    lead_lists: lists,
    lead_attributes: attributes,
    webhooks: hooks.map(({ headers: _headers, ...w }) => w),
    flags: flagRows,
    bulk_jobs: jobs,
    request_logs: logs,
  };
}

/**
 * Deletes the account: its keys, sessions, links, leads, lists, attributes, webhooks, flags, bulk job
 * index rows, signing secrets and memberships go; a workspace it owns is dissolved (its members keep
 * their own accounts). The account row stays, blocked, without address, name or password, so the
 * request logs and billing records it still owns (kept until their retention ends) point at no one.
 */
export async function deleteAccount(d1: D1Database, accountId: number): Promise<void> {
  const store = db(d1);
  const owned = store.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.ownerAccountId, accountId));
  await store.batch([
    store.delete(workspaceMembers).where(inArray(workspaceMembers.workspaceId, owned)),
    store.delete(workspaceMembers).where(eq(workspaceMembers.accountId, accountId)),
    store.delete(workspaces).where(eq(workspaces.ownerAccountId, accountId)),
    store.delete(apiKeys).where(eq(apiKeys.accountId, accountId)),
    store.delete(dashboardSessions).where(eq(dashboardSessions.accountId, accountId)),
    store.delete(accountTokens).where(eq(accountTokens.accountId, accountId)),
    store.delete(leads).where(eq(leads.accountId, accountId)),
    store.delete(leadLists).where(eq(leadLists.accountId, accountId)),
    store.delete(leadAttributes).where(eq(leadAttributes.accountId, accountId)),
    store.delete(webhooks).where(eq(webhooks.accountId, accountId)),
    store.delete(flags).where(eq(flags.accountId, accountId)),
    store.delete(bulkJobs).where(eq(bulkJobs.accountId, accountId)),
    store.delete(signingSecrets).where(eq(signingSecrets.accountId, accountId)),
    store.delete(deliveryAttempts).where(eq(deliveryAttempts.accountId, accountId)),
    store
      .update(accounts)
      .set({
        email: sql`'deleted-' || ${accounts.id} || '@deleted.invalid'`,
        firstName: null,
        lastName: null,
        passwordHash: null,
        blocked: true,
        confirmed: false,
      })
      .where(eq(accounts.id, accountId)),
  ]);
}
