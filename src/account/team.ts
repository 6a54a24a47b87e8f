import { and, count, eq, gt, isNull, sql } from "drizzle-orm";
import { forgetAccountKeys } from "../auth/auth-cache.js";
import type { InvitedRole } from "../auth/roles.js";
import { db } from "../db/client.js";
import { type Account, accounts, teamInvitations, workspaceMembers, workspaces } from "../db/schema.js";
import { dashboardSessions } from "../db/schema-dashboard.js";
import type { MailMessage } from "../delivery/mail.js";
import { ApiError } from "../http/errors.js";
import { planFor } from "../limits/plans.js";
import { randomToken, sha256Hex } from "../platform/crypto.js";
import { forgetMeViews } from "./me-cache.js";

/**
 * Teams: people who act on one account. The account's holder is its owner; the people it invites
 * (by a link mailed to them) join its workspace as admins or members, sign in with their own
 * password, and act on the owner's account: its credits, limits, keys cap, leads and logs (each log
 * row names the member who made it). An account has at most `pricing.available_teams` people, the
 * owner included, counting invitations not yet answered.
 *
 * Who may do what: the owner everything; an admin manages API keys and the team (never the owner);
 * a member uses the account (searches, leads, bulk jobs) but manages no key, no plan and no one.
 * Billing (plans, credit packs) is the owner's alone.
 */
export const INVITATION_TTL_MS = 7 * 86_400_000;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

async function workspaceOf(d1: D1Database, ownerId: number): Promise<number | undefined> {
  const [row] = await db(d1)
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.ownerAccountId, ownerId))
    .limit(1);
  return row?.id;
}

/** The team of the account: its owner, members and open invitations, and its size cap. */
export async function teamOf(d1: D1Database, owner: Account, now = Date.now()) {
  const store = db(d1);
  const [members, invitations] = await Promise.all([
    store
      .select({
        id: accounts.id,
        email: accounts.email,
        role: workspaceMembers.role,
        joinedAt: workspaceMembers.createdAt,
      })
      .from(workspaceMembers)
      .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
      .innerJoin(accounts, eq(accounts.id, workspaceMembers.accountId))
      .where(eq(workspaces.ownerAccountId, owner.id))
      .orderBy(workspaceMembers.createdAt),
    openInvitations(d1, owner.id, now),
  ]);
  const seats = planFor(owner.plan).caps.teams;
  return {
    seats,
    used: 1 + members.length + invitations.length,
    owner: { id: owner.id, email: owner.email, role: "owner" as const },
    members: members.map((m) => ({
      id: m.id,
      email: m.email,
      role: (m.role === "admin" ? "admin" : "member") as InvitedRole,
      joined_at: iso(m.joinedAt),
    })),
    invitations: invitations.map((i) => ({
      id: i.id,
      email: i.email,
      role: i.role,
      invited_at: iso(i.createdAt),
      expires_at: iso(i.expiresAt),
    })),
  };
}

function openInvitations(d1: D1Database, ownerId: number, now: number) {
  return db(d1)
    .select()
    .from(teamInvitations)
    .where(
      and(
        eq(teamInvitations.ownerAccountId, ownerId),
        isNull(teamInvitations.acceptedAt),
        gt(teamInvitations.expiresAt, now),
      ),
    )
    .orderBy(teamInvitations.createdAt);
}

export function invitationMessage(to: string, ownerEmail: string, role: InvitedRole, link: string): MailMessage {
  return {
    to,
    subject: "You are invited to a Contact Intelligence account",
    link,
    text: `${ownerEmail} invites you to use their Contact Intelligence account as ${role === "admin" ? "an admin" : "a member"}.\n\nJoin here (you choose your own password, or sign in with the one you have):\n\n${link}\n\nThe link works for 7 days and once. If you did not expect it, ignore this message.\n`,
  };
}

/**
 * Invites `email` to the owner's account; answers the invitation and the token of its link (mailed
 * by the caller, never shown). Refused when the address is already on the team (409) or the team is
 * full (422). A new invitation to the same address replaces the open one.
 */
export async function invite(
  d1: D1Database,
  owner: Account,
  inviter: Account,
  email: string,
  role: InvitedRole,
  now = Date.now(),
) {
  const address = email.trim().toLowerCase();
  const team = await teamOf(d1, owner, now);
  if (address === owner.email.toLowerCase() || team.members.some((m) => m.email.toLowerCase() === address))
    throw new ApiError(409, "already_member", `${address} is already on this account's team.`);
  const replacing = team.invitations.some((i) => i.email === address);
  if (team.used - (replacing ? 1 : 0) >= team.seats)
    throw new ApiError(
      422,
      "team_limit_reached",
      `Your plan allows ${team.seats} ${team.seats === 1 ? "person" : "people"} on the account, you included; remove someone or change plan first.`,
    );
  const existing = await db(d1)
    .select({ id: accounts.id })
    .from(accounts)
    .innerJoin(workspaceMembers, eq(workspaceMembers.accountId, accounts.id))
    .where(sql`lower(${accounts.email}) = ${address}`)
    .limit(1);
  if (existing.length)
    throw new ApiError(409, "already_member", `${address} is already a member of another account's team.`);
  if ((await workspaceOf(d1, owner.id)) === undefined)
    await db(d1).insert(workspaces).values({ ownerAccountId: owner.id, name: owner.email, createdAt: now });
  const token = randomToken(32);
  const store = db(d1);
  const [, [row]] = await store.batch([
    store
      .delete(teamInvitations)
      .where(
        and(
          eq(teamInvitations.ownerAccountId, owner.id),
          eq(teamInvitations.email, address),
          isNull(teamInvitations.acceptedAt),
        ),
      ),
    store
      .insert(teamInvitations)
      .values({
        tokenHash: await sha256Hex(token),
        ownerAccountId: owner.id,
        email: address,
        role,
        invitedBy: inviter.id,
        createdAt: now,
        expiresAt: now + INVITATION_TTL_MS,
      })
      .returning(),
  ]);
  if (!row) throw new Error("inserting an invitation returned no row");
  return {
    token,
    invitation: {
      id: row.id,
      email: row.email,
      role: row.role,
      invited_at: iso(row.createdAt),
      expires_at: iso(row.expiresAt),
    },
  };
}

/** Withdraws an open invitation of the owner's account (404 for any other). */
export async function withdrawInvitation(d1: D1Database, ownerId: number, id: number): Promise<void> {
  const done = await db(d1)
    .delete(teamInvitations)
    .where(
      and(eq(teamInvitations.id, id), eq(teamInvitations.ownerAccountId, ownerId), isNull(teamInvitations.acceptedAt)),
    )
    .returning({ id: teamInvitations.id });
  if (!done.length) throw new ApiError(404, "unknown_record", `No open invitation with id ${id} on this account.`);
}

/** A member of the owner's workspace (404 for anyone else: another account's members are not found). */
async function memberOf(d1: D1Database, ownerId: number, memberId: number) {
  const [row] = await db(d1)
    .select({ workspaceId: workspaceMembers.workspaceId, role: workspaceMembers.role })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaces.ownerAccountId, ownerId), eq(workspaceMembers.accountId, memberId)))
    .limit(1);
  if (!row) throw new ApiError(404, "unknown_record", `No member with id ${memberId} on this account's team.`);
  return row;
}

/** Ends a member's access at once: the membership, their dashboard sessions and cached credentials. */
export async function removeMember(d1: D1Database, ownerId: number, memberId: number): Promise<void> {
  const { workspaceId } = await memberOf(d1, ownerId, memberId);
  const store = db(d1);
  await store.batch([
    store
      .delete(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.accountId, memberId))),
    store.delete(dashboardSessions).where(eq(dashboardSessions.accountId, memberId)),
  ]);
  forgetAccountKeys(memberId);
  forgetMeViews(memberId);
}

export async function setMemberRole(d1: D1Database, ownerId: number, memberId: number, role: InvitedRole) {
  const { workspaceId } = await memberOf(d1, ownerId, memberId);
  await db(d1)
    .update(workspaceMembers)
    .set({ role })
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.accountId, memberId)))
    .run();
}

/** An open invitation by its link's token, with its owner's address; undefined when spent or expired. */
export async function invitationByToken(d1: D1Database, token: string, now = Date.now()) {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const [row] = await db(d1)
    .select({ invitation: teamInvitations, ownerEmail: accounts.email })
    .from(teamInvitations)
    .innerJoin(accounts, eq(accounts.id, teamInvitations.ownerAccountId))
    .where(
      and(
        eq(teamInvitations.tokenHash, await sha256Hex(token)),
        isNull(teamInvitations.acceptedAt),
        gt(teamInvitations.expiresAt, now),
      ),
    )
    .limit(1);
  return row ? { ...row.invitation, ownerEmail: row.ownerEmail } : undefined;
}

/**
 * Joins `accountId` (the invited address's account) to the inviting owner's workspace, once. False
 * when the link was spent meanwhile, or the account is already on a team or has a team of its own.
 */
export async function acceptInvitation(d1: D1Database, token: string, accountId: number, now = Date.now()) {
  const invitation = await invitationByToken(d1, token, now);
  if (!invitation || invitation.ownerAccountId === accountId) return false;
  const [[own], [already]] = await Promise.all([
    db(d1)
      .select({ n: count() })
      .from(workspaceMembers)
      .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
      .where(eq(workspaces.ownerAccountId, accountId)),
    db(d1).select({ n: count() }).from(workspaceMembers).where(eq(workspaceMembers.accountId, accountId)),
  ]);
  if ((own?.n ?? 0) > 0 || (already?.n ?? 0) > 0) return false;
  const workspaceId = await workspaceOf(d1, invitation.ownerAccountId);
  if (workspaceId === undefined) return false;
  const spent = await db(d1)
    .update(teamInvitations)
    .set({ acceptedAt: now })
    .where(and(eq(teamInvitations.id, invitation.id), isNull(teamInvitations.acceptedAt)))
    .returning({ id: teamInvitations.id });
  if (!spent.length) return false;
  await db(d1).insert(workspaceMembers).values({ workspaceId, accountId, role: invitation.role, createdAt: now });
  forgetAccountKeys(accountId);
  forgetMeViews(accountId);
  return true;
}
