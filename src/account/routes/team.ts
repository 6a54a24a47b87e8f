import { createRoute, z } from "@hono/zod-openapi";
import { requireRole } from "../../auth/roles.js";
import { linkOrigin, mailerFor } from "../../delivery/mail.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { logError } from "../../request-context.js";
import { invitationMessage, invite, removeMember, setMemberRole, teamOf, withdrawInvitation } from "../team.js";

/** Where an invitation's link opens: the dashboard's join page (the person's own password is set there). */
export const JOIN_PATH = "/app/team/join";

const doc = { tags: ["Account"], security };
const json = <T extends z.ZodType>(description: string, schema: T) =>
  ({ description, content: { "application/json": { schema } } }) as const;
const body = <T extends z.ZodType>(schema: T) =>
  ({ required: true, content: { "application/json": { schema } } }) as const;

const Role = z
  .enum(["admin", "member"])
  .openapi({ description: "admin: manages keys and the team; member: uses the account" });
const Invitation = z
  .object({
    id: z.number().int(),
    email: z.string(),
    role: Role,
    invited_at: z.string().nullable(),
    expires_at: z.string().nullable(),
  })
  .openapi("TeamInvitation");
const Member = z
  .object({ id: z.number().int(), email: z.string(), role: Role, joined_at: z.string().nullable() })
  .openapi("TeamMember");
export const Team = z
  .object({
    data: z.object({
      seats: z
        .number()
        .int()
        .openapi({ description: "pricing.available_teams: people on the account, the owner included" }),
      used: z.number().int().openapi({ description: "owner + members + open invitations" }),
      owner: z.object({ id: z.number().int(), email: z.string(), role: z.literal("owner") }),
      members: z.array(Member),
      invitations: z.array(Invitation),
    }),
  })
  .openapi("Team");
export type Team = z.infer<typeof Team>;
const Done = z.object({ status: z.boolean(), message: z.string() });
const IdParam = z.object({
  id: z
    .string()
    .regex(/^\d{1,15}$/, "The id must be a number.")
    .openapi({ param: { name: "id", in: "path" }, example: "1" }),
});
const InviteBody = z
  .strictObject({
    email: z.string().trim().max(254).email("The email must be an address like jane@example.com."),
    role: Role.default("member"),
  })
  .openapi("TeamInvite");
const RoleBody = z.strictObject({ role: Role }).openapi("TeamRoleChange");

const getTeam = createRoute({
  method: "get",
  path: "/team",
  ...doc,
  summary: "The account's team: owner, members, open invitations, and the plan's cap (available_teams)",
  responses: { 200: json("The team", Team), ...ErrorResponses },
});
const postInvitation = createRoute({
  method: "post",
  path: "/team/invitations",
  ...doc,
  summary: "Invite someone by email (a link is mailed to them); owner or admin; 409 already on a team, 422 team full",
  request: { body: body(InviteBody) },
  responses: { 201: json("Invited", Done.extend({ data: Invitation })), ...ErrorResponses },
});
const deleteInvitation = createRoute({
  method: "delete",
  path: "/team/invitations/{id}",
  ...doc,
  summary: "Withdraw an open invitation; owner or admin",
  request: { params: IdParam },
  responses: { 200: json("Withdrawn", Done), ...ErrorResponses },
});
const patchMember = createRoute({
  method: "patch",
  path: "/team/members/{id}",
  ...doc,
  summary: "Change a member's role; owner or admin",
  request: { params: IdParam, body: body(RoleBody) },
  responses: { 200: json("Changed", Done), ...ErrorResponses },
});
const deleteMember = createRoute({
  method: "delete",
  path: "/team/members/{id}",
  ...doc,
  summary: "Remove a member: their access to this account ends at once; owner or admin",
  request: { params: IdParam },
  responses: { 200: json("Removed", Done), ...ErrorResponses },
});

/** /v1/team: the same team a person manages on the dashboard's Team page, for any client. */
export function registerTeamRoutes(v1: ApiApp) {
  v1.openapi(getTeam, async (c) => c.json({ data: await teamOf(c.env.DB, c.get("auth").account) }, 200));

  v1.openapi(postInvitation, async (c) => {
    const auth = c.get("auth");
    await requireRole(c.env.DB, auth, "members");
    const { email, role } = c.req.valid("json");
    // Checked before the invitation exists: a deployment that cannot mail leaves none behind.
    const mailer = mailerFor(c.env);
    const origin = linkOrigin(c.env, c.req.url);
    const { token, invitation } = await invite(c.env.DB, auth.account, auth.actor, email, role);
    try {
      await mailer.send(
        invitationMessage(invitation.email, auth.account.email, role, `${origin}${JOIN_PATH}?token=${token}`),
      );
    } catch (err) {
      logError("team: the invitation could not be mailed", err);
      await withdrawInvitation(c.env.DB, auth.account.id, invitation.id);
      throw new ApiError(503, "service_unavailable", "The invitation could not be mailed; try again in a few minutes.");
    }
    return c.json({ status: true, message: `An invitation was mailed to ${invitation.email}.`, data: invitation }, 201);
  });

  v1.openapi(deleteInvitation, async (c) => {
    const auth = c.get("auth");
    await requireRole(c.env.DB, auth, "members");
    await withdrawInvitation(c.env.DB, auth.account.id, Number(c.req.valid("param").id));
    return c.json({ status: true, message: "The invitation was withdrawn." }, 200);
  });

  v1.openapi(patchMember, async (c) => {
    const auth = c.get("auth");
    await requireRole(c.env.DB, auth, "members");
    await setMemberRole(c.env.DB, auth.account.id, Number(c.req.valid("param").id), c.req.valid("json").role);
    return c.json({ status: true, message: "The member's role was changed." }, 200);
  });

  v1.openapi(deleteMember, async (c) => {
    const auth = c.get("auth");
    await requireRole(c.env.DB, auth, "members");
    const id = Number(c.req.valid("param").id);
    if (id === auth.actor.id)
      throw new ApiError(409, "invalid_state", "You cannot remove yourself; ask the owner or another admin.");
    await removeMember(c.env.DB, auth.account.id, id);
    return c.json({ status: true, message: "The member was removed; their access ended." }, 200);
  });
}
