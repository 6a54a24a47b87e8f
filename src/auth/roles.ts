import { eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { workspaceMembers } from "../db/schema.js";
import { ApiError } from "../http/errors.js";
import type { AuthContext } from "./auth-context.js";

/**
 * Who may do what on an account with a team (src/account/team.ts): the owner everything; an admin
 * manages API keys and the team; a member uses the account but manages no key, no plan and no one.
 * Billing (plans, credit packs) is the owner's alone.
 */
export type TeamRole = "owner" | "admin" | "member";
export type InvitedRole = Exclude<TeamRole, "owner">;

const MAY: Record<"keys" | "members" | "billing", TeamRole[]> = {
  keys: ["owner", "admin"],
  members: ["owner", "admin"],
  billing: ["owner"],
};
const DOING = { keys: "manage API keys", members: "manage the team", billing: "change the plan or buy credits" };

/** The role of the request's actor on the account it acts for. */
export async function roleOf(d1: D1Database, auth: AuthContext): Promise<TeamRole> {
  if (auth.actor.id === auth.account.id) return "owner";
  const [row] = await db(d1)
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(eq(workspaceMembers.accountId, auth.actor.id))
    .limit(1);
  return row?.role === "admin" ? "admin" : "member";
}

/** Refuses (403 forbidden) an actor whose role may not do `what`. */
export async function requireRole(d1: D1Database, auth: AuthContext, what: keyof typeof MAY): Promise<TeamRole> {
  const role = await roleOf(d1, auth);
  if (!MAY[what].includes(role)) {
    const who = what === "billing" ? "the account's owner" : "the account's owner or an admin";
    throw new ApiError(403, "forbidden", `Only ${who} can ${DOING[what]}; you are a ${role} of this account.`);
  }
  return role;
}
