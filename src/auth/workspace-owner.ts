import { eq } from "drizzle-orm";
import { alias, type SQLiteSelect } from "drizzle-orm/sqlite-core";
import { type Account, accounts, workspaceMembers, workspaces } from "../db/schema.js";

/**
 * A member of a workspace acts for its owner (credits, limits and usage are the owner's). Both ways
 * in (key + secret in authenticate.ts, bearer tokens in bearer.ts) read the credential's account and
 * its workspace owner in the same query, built here.
 */
export const owners = alias(accounts, "owners");

/** Adds the joins that find the owner of the workspace `accounts` belongs to (selected as `owners`). */
export function joinWorkspaceOwner<T extends SQLiteSelect>(query: T) {
  return query
    .leftJoin(workspaceMembers, eq(workspaceMembers.accountId, accounts.id))
    .leftJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .leftJoin(owners, eq(owners.id, workspaces.ownerAccountId));
}

/** The owner when it is another account; null for an account acting for itself. */
export function otherOwner(actor: Account, owner: Account | null | undefined): Account | null {
  return owner && owner.id !== actor.id ? owner : null;
}
