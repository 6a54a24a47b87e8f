import { z } from "@hono/zod-openapi";
import type { Team as TeamBody } from "../../account/routes/team.js";
import { acceptInvitation, invitationByToken } from "../../account/team.js";
import { signInWithPassword } from "../../auth/password-sign-in.js";
import { hashPassword } from "../../platform/crypto.js";
import { accountByEmail, createAccount, markConfirmed } from "../account-records.js";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PATHS } from "../config.js";
import { EmailField, firstIssue, NewPassword } from "../forms.js";
import { clientIp, type DashApp, type DashCtx, fmt, formOf, recordId, render, statusFor, when } from "../http.js";
import { csrfOk, currentSession, formToken, startSession } from "../session.js";
import { throttleSignUp } from "../throttle.js";
import type { V1Answer } from "../v1-client.js";
import { AppPage, Csrf, Notice, PublicPage } from "../views/layout.js";
import { DataTable, Done, PostButton, V1Error } from "../views/parts.js";

/**
 * The Team page (/app/team) over /v1/team, and the page an invitation's link opens
 * (/app/team/join): the invited person sets their own password (or signs in with the one they
 * have) and from then on acts on the inviting account. Roles and the cap: src/account/team.ts.
 */

const TEAM_DONE: Record<string, string> = {
  invited: "The invitation was mailed. It works for 7 days.",
  withdrawn: "The invitation was withdrawn.",
  role: "The role was changed.",
  removed: "The member was removed: their access to this account ended.",
};

const ROLE_WORDS = {
  owner: "Owner: everything, plan and credits included",
  admin: "Admin: API keys and the team",
  member: "Member: searches, leads and bulk jobs",
} as const;

const Invite = z.strictObject({
  csrf: z.string(),
  email: EmailField,
  role: z.enum(["admin", "member"], { message: "Choose admin or member." }),
});
const RoleChange = z.strictObject({
  csrf: z.string(),
  role: z.enum(["admin", "member"], { message: "Choose admin or member." }),
});
const Join = z.strictObject({
  csrf: z.string(),
  token: z.string().max(64),
  password: NewPassword,
});

async function teamPage(c: DashCtx, problem?: V1Answer | string, status: 200 | ReturnType<typeof statusFor> = 200) {
  const session = c.get("session");
  const answer = await c.get("v1").read<TeamBody>("/v1/team");
  const team = answer.ok ? answer.body.data : null;
  const me =
    team?.owner.id === session.accountId
      ? "owner"
      : (team?.members.find((m) => m.id === session.accountId)?.role ?? "member");
  const manages = me === "owner" || me === "admin";
  return render(
    c,
    <AppPage title="Team" session={session} active="team">
      <Done messages={TEAM_DONE} code={c.req.query("ok")} />
      {typeof problem === "string" ? <Notice kind="error">{problem}</Notice> : <V1Error answer={problem ?? answer} />}
      {team ? (
        <>
          <p>
            Everyone here signs in with their own password and works on this account: its credits, limits, leads and
            bulk jobs are shared, and the request logs say who did what. Your plan allows{" "}
            <strong>
              {fmt(team.seats)} {team.seats === 1 ? "person" : "people"}
            </strong>{" "}
            (you included); {fmt(team.used)} {team.used === 1 ? "seat is" : "seats are"} taken.
          </p>
          <DataTable label="People" columns={["Who", "Role", "Since", ""]}>
            <tr>
              <th scope="row">{team.owner.email}</th>
              <td>{ROLE_WORDS.owner}</td>
              <td>–</td>
              <td></td>
            </tr>
            {team.members.map((m) => (
              <tr>
                <th scope="row">{m.email}</th>
                <td>
                  {manages && m.id !== session.accountId ? (
                    <form method="post" action={`${PATHS.team}/members/${m.id}/role`} class="row">
                      <Csrf token={session.csrf} />
                      <div>
                        <label class="sr-only" for={`role-${m.id}`}>
                          Role of {m.email}
                        </label>
                        <select id={`role-${m.id}`} name="role">
                          {(["admin", "member"] as const).map((r) => (
                            <option value={r} selected={r === m.role}>
                              {ROLE_WORDS[r]}
                            </option>
                          ))}
                        </select>
                      </div>
                      <div class="shrink">
                        <button type="submit" class="small">
                          Change
                        </button>
                      </div>
                    </form>
                  ) : (
                    ROLE_WORDS[m.role]
                  )}
                </td>
                <td class="nowrap">{when(m.joined_at)}</td>
                <td>
                  {manages && m.id !== session.accountId ? (
                    <PostButton
                      csrf={session.csrf}
                      action={`${PATHS.team}/members/${m.id}/remove`}
                      label="Remove"
                      kind="danger"
                      small
                      confirm={`Remove ${m.email}? Their access to this account ends at once.`}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
            {team.invitations.map((i) => (
              <tr>
                <th scope="row">
                  {i.email} <span class="badge warn">invited</span>
                </th>
                <td>{ROLE_WORDS[i.role]}</td>
                <td class="nowrap">until {when(i.expires_at)}</td>
                <td>
                  {manages ? (
                    <PostButton
                      csrf={session.csrf}
                      action={`${PATHS.team}/invitations/${i.id}/withdraw`}
                      label="Withdraw"
                      small
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </DataTable>
          {manages ? (
            <section class="card" aria-labelledby="invite-h">
              <h2 id="invite-h">Invite someone</h2>
              {team.used >= team.seats ? (
                <p class="muted">
                  Every seat is taken. Remove someone, or move to a plan with more seats on the{" "}
                  <a href={PATHS.plans}>Plans</a> page.
                </p>
              ) : (
                <form method="post" action={`${PATHS.team}/invite`}>
                  <Csrf token={session.csrf} />
                  <div class="grid">
                    <div>
                      <label for="invite-email">Their work email</label>
                      <input id="invite-email" name="email" type="email" required maxlength={254} autocomplete="off" />
                    </div>
                    <div>
                      <label for="invite-role">Role</label>
                      <select id="invite-role" name="role">
                        <option value="member">{ROLE_WORDS.member}</option>
                        <option value="admin">{ROLE_WORDS.admin}</option>
                      </select>
                    </div>
                  </div>
                  <div class="actions">
                    <button type="submit" class="primary">
                      Send the invitation
                    </button>
                  </div>
                </form>
              )}
            </section>
          ) : (
            <p class="muted">You are a member of this team: the owner or an admin manages who is on it.</p>
          )}
        </>
      ) : null}
    </AppPage>,
    status,
  );
}

/** The join page: who invites, as what, and the one field the person fills. */
async function joinPage(c: DashCtx, token: string, error?: string, status: 200 | 400 | 403 | 409 | 429 = 200) {
  const invitation = await invitationByToken(c.env.DB, token);
  if (!invitation)
    return render(
      c,
      <PublicPage title="This invitation does not work">
        <Notice kind="error">The invitation expired, was withdrawn or was already used.</Notice>
        <p>Ask whoever invited you to send a new one.</p>
      </PublicPage>,
      error ? status : 400,
    );
  const existing = await accountByEmail(c.env.DB, invitation.email);
  return render(
    c,
    <PublicPage title="Join the team">
      <p>
        <strong>{invitation.ownerEmail}</strong> invites <strong>{invitation.email}</strong> to their account as{" "}
        {invitation.role === "admin" ? "an admin" : "a member"}.
      </p>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <form method="post" action={`${PATHS.team}/join`}>
        <Csrf token={formToken(c)} />
        <input type="hidden" name="token" value={token} />
        <label for="join-password">{existing ? "Your password" : "Choose a password"}</label>
        <input
          id="join-password"
          name="password"
          type="password"
          required
          minlength={existing ? undefined : MIN_PASSWORD_LENGTH}
          maxlength={MAX_PASSWORD_LENGTH}
          autocomplete={existing ? "current-password" : "new-password"}
        />
        <p class="hint">
          {existing
            ? "You already have an account with this address: sign in with its password to join."
            : `At least ${MIN_PASSWORD_LENGTH} characters. You will sign in with ${invitation.email} and this password.`}
        </p>
        <div class="actions">
          <button type="submit" class="primary">
            Join
          </button>
        </div>
      </form>
    </PublicPage>,
    status,
  );
}

/** The join pages: public (the link is the invitation), so registered before the signed-in middleware. */
export function registerTeamJoinPages(app: DashApp) {
  app.get(`${PATHS.team}/join`, (c) => joinPage(c, c.req.query("token") ?? ""));

  app.post(`${PATHS.team}/join`, async (c) => {
    const form = await formOf(c);
    const token = (form.token ?? "").slice(0, 64);
    if (!(await csrfOk(c, null, form.csrf)))
      return joinPage(c, token, "This form expired or came from another site. Reload the page and try again.", 403);
    const parsed = Join.safeParse(form);
    if (!parsed.success) return joinPage(c, token, firstIssue(parsed.error), 400);
    const invitation = await invitationByToken(c.env.DB, token);
    if (!invitation) return joinPage(c, token);
    const tooMany = (wait: number) => joinPage(c, token, `Too many attempts. Try again in ${wait} seconds.`, 429);
    let account = await accountByEmail(c.env.DB, invitation.email);
    if (account) {
      // The sign-in check every password form uses (its throttles, its equal answers).
      const attempt = await signInWithPassword(c.env, {
        ip: clientIp(c),
        email: invitation.email,
        password: parsed.data.password,
        allowUnconfirmed: true,
      });
      if (attempt.outcome === "throttled") return tooMany(attempt.retryAfter);
      if (attempt.outcome === "refused") return joinPage(c, token, "That is not this account's password.", 403);
    } else {
      const wait = await throttleSignUp(c.env, clientIp(c));
      if (wait !== null) return tooMany(wait);
      account = await createAccount(c.env.DB, invitation.email, await hashPassword(parsed.data.password));
      if (!account) return joinPage(c, token, "Try again: the account could not be created.", 409);
    }
    // The link reached this mailbox: the address is confirmed, as a confirmation link would.
    if (!account.confirmed) await markConfirmed(c.env.DB, account.id);
    if (!(await acceptInvitation(c.env.DB, token, account.id)))
      return joinPage(c, token, "This account is already on a team (its own or another's), so it cannot join.", 409);
    if ((await currentSession(c))?.accountId !== account.id) await startSession(c, account.id);
    return c.redirect(`${PATHS.overview}?ok=joined`, 303);
  });
}

/** The Team page and its forms, for a signed-in account; every change goes through /v1/team. */
export function registerTeamPages(app: DashApp) {
  app.get(PATHS.team, (c) => teamPage(c));

  app.post(`${PATHS.team}/invite`, async (c) => {
    const parsed = Invite.safeParse(await formOf(c));
    if (!parsed.success) return teamPage(c, firstIssue(parsed.error), 400);
    const { email, role } = parsed.data;
    const done = await c.get("v1").act("POST", "/v1/team/invitations", { json: { email, role } });
    return done.ok ? c.redirect(`${PATHS.team}?ok=invited`, 303) : teamPage(c, done, statusFor(done));
  });

  app.post(`${PATHS.team}/invitations/:id/withdraw`, async (c) => {
    const done = await c.get("v1").act("DELETE", `/v1/team/invitations/${recordId(c.req.param("id"))}`);
    return done.ok ? c.redirect(`${PATHS.team}?ok=withdrawn`, 303) : teamPage(c, done, statusFor(done));
  });

  app.post(`${PATHS.team}/members/:id/role`, async (c) => {
    const parsed = RoleChange.safeParse(await formOf(c));
    if (!parsed.success) return teamPage(c, firstIssue(parsed.error), 400);
    const done = await c
      .get("v1")
      .act("PATCH", `/v1/team/members/${recordId(c.req.param("id"))}`, { json: { role: parsed.data.role } });
    return done.ok ? c.redirect(`${PATHS.team}?ok=role`, 303) : teamPage(c, done, statusFor(done));
  });

  app.post(`${PATHS.team}/members/:id/remove`, async (c) => {
    const done = await c.get("v1").act("DELETE", `/v1/team/members/${recordId(c.req.param("id"))}`);
    return done.ok ? c.redirect(`${PATHS.team}?ok=removed`, 303) : teamPage(c, done, statusFor(done));
  });
}
