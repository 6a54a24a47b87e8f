import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { FC } from "hono/jsx";
import { forgetMeViews } from "../../account/me-cache.js";
import { forgetAccountKeys } from "../../auth/auth-cache.js";
import { db } from "../../db/client.js";
import { accounts } from "../../db/schema.js";
import { bulkJobs } from "../../db/schema-bulk.js";
import { hashPassword, verifyPassword } from "../../platform/crypto.js";
import { logError } from "../../request-context.js";
import { deleteAccount, exportAccount, setEmail } from "../account-data.js";
import { accountByEmail, issueToken, setPassword, spendToken } from "../account-records.js";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PATHS } from "../config.js";
import { EmailField, firstIssue, NewPassword } from "../forms.js";
import { type DashApp, type DashCtx, formOf, render } from "../http.js";
import { linkOrigin, type MailMessage, mailerFor } from "../mailer.js";
import { endAccountSessions, endSession } from "../session.js";
import { AppPage, Csrf, Notice, PublicPage } from "../views/layout.js";
import { Done } from "../views/parts.js";

/**
 * Settings: the account's address (changed only once the new one's mailbox opens the link sent to
 * it), its password (the change signs out every other session), its data (a JSON export) and its
 * deletion (account-data.ts says what goes and what stays until its retention ends).
 */
const SETTINGS_DONE: Record<string, string> = {
  "email-sent": "We sent a link to the new address. Your address changes when you open it.",
  "email-changed": "Your email address is changed.",
  "password-changed": "Your new password is saved. Every other session was signed out.",
};

const Password = NewPassword;
const ChangePassword = z.object({ current: z.string().min(1, "Enter your current password."), password: Password });
const ChangeEmail = z.object({
  email: EmailField,
  current: z.string().min(1, "Enter your current password."),
});
const DeleteAccount = z.object({
  current: z.string().min(1, "Enter your current password."),
  confirm: z.string().refine((v) => v.trim().toLowerCase() === "delete", 'Type "delete" to confirm.'),
});

type Problems = Partial<Record<"password" | "email" | "delete", string>>;

const PasswordField: FC<{ id: string; label: string; name: string; autocomplete: string; min?: boolean }> = ({
  id,
  label,
  name,
  autocomplete,
  min,
}) => (
  <div>
    <label for={id}>{label}</label>
    <input
      id={id}
      name={name}
      type="password"
      required
      autocomplete={autocomplete}
      minlength={min ? MIN_PASSWORD_LENGTH : undefined}
      maxlength={MAX_PASSWORD_LENGTH}
    />
  </div>
);

async function settingsPage(c: DashCtx, problems: Problems = {}, status: 200 | 400 | 403 | 409 = 200) {
  const session = c.get("session");
  return render(
    c,
    <AppPage title="Settings" session={session} active="settings">
      <Done messages={SETTINGS_DONE} code={c.req.query("ok")} />
      <section class="card" aria-labelledby="email-h">
        <h2 id="email-h">Email address</h2>
        <p>
          You sign in as <strong>{session.email}</strong>. A new address takes effect when you open the link we send to
          it.
        </p>
        {problems.email ? <Notice kind="error">{problems.email}</Notice> : null}
        <form method="post" action={`${PATHS.settings}/email`}>
          <Csrf token={session.csrf} />
          <div class="grid">
            <div>
              <label for="new-email">New email address</label>
              <input id="new-email" name="email" type="email" required autocomplete="email" maxlength={254} />
            </div>
            <PasswordField id="email-current" label="Current password" name="current" autocomplete="current-password" />
          </div>
          <div class="actions">
            <button type="submit" class="primary">
              Send the confirmation link
            </button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="password-h">
        <h2 id="password-h">Password</h2>
        <p class="muted">Changing it signs out every other session of this account; this one stays signed in.</p>
        {problems.password ? <Notice kind="error">{problems.password}</Notice> : null}
        <form method="post" action={`${PATHS.settings}/password`}>
          <Csrf token={session.csrf} />
          <div class="grid">
            <PasswordField id="pw-current" label="Current password" name="current" autocomplete="current-password" />
            <PasswordField id="pw-new" label="New password" name="password" autocomplete="new-password" min />
          </div>
          <div class="actions">
            <button type="submit" class="primary">
              Change the password
            </button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="export-h">
        <h2 id="export-h">Your data</h2>
        <p>
          One JSON file with your account, keys (never their secrets), leads, lists, attributes, webhooks, flags, bulk
          jobs and request logs.
        </p>
        <a class="btn" href={`${PATHS.settings}/export.json`} download>
          Download my data
        </a>
      </section>
      <section class="card" aria-labelledby="delete-h">
        <h2 id="delete-h">Delete the account</h2>
        <p>
          Deletes your keys, leads, lists, webhooks, bulk jobs and team at once and signs you out everywhere. Request
          logs and billing records are kept until their retention ends (3 months for logs), under an account that no
          longer says who you were. Unused credits are lost.
        </p>
        {problems.delete ? <Notice kind="error">{problems.delete}</Notice> : null}
        <form
          method="post"
          action={`${PATHS.settings}/delete`}
          data-confirm="Delete this account and its data for good?"
        >
          <Csrf token={session.csrf} />
          <div class="grid">
            <PasswordField id="del-current" label="Current password" name="current" autocomplete="current-password" />
            <div>
              <label for="del-confirm">Type "delete" to confirm</label>
              <input id="del-confirm" name="confirm" type="text" required autocomplete="off" />
            </div>
          </div>
          <div class="actions">
            <button type="submit" class="danger">
              Delete my account
            </button>
          </div>
        </form>
      </section>
    </AppPage>,
    status,
  );
}

/** The signed-in account's password checks out (a member's own password: settings are a person's). */
async function passwordMatches(c: DashCtx, password: string): Promise<boolean> {
  const [row] = await db(c.env.DB)
    .select({ hash: accounts.passwordHash })
    .from(accounts)
    .where(eq(accounts.id, c.get("session").accountId))
    .limit(1);
  return row?.hash ? verifyPassword(password, row.hash) : false;
}

const WRONG_PASSWORD = "Your current password is not right.";

function emailChangeMessage(to: string, link: string): MailMessage {
  return {
    to,
    subject: "Confirm your new email address",
    link,
    text: `Someone (hopefully you) asked to use this address for a Contact Intelligence account.\n\nConfirm it here:\n\n${link}\n\nThe link works for 24 hours and once. If you did not ask for it, ignore this message.\n`,
  };
}

/** Ends the account's bulk jobs through /v1 (their files and objects go with them) before the rows are deleted. */
async function deleteBulkJobs(c: DashCtx, accountId: number): Promise<void> {
  const jobs = await db(c.env.DB)
    .select({ id: bulkJobs.id, type: bulkJobs.type, status: bulkJobs.status })
    .from(bulkJobs)
    .where(eq(bulkJobs.accountId, accountId));
  const v1 = c.get("v1");
  for (const job of jobs) {
    if (job.status === "running") await v1.act("POST", `/v1/bulk/${job.type}/${job.id}/cancel`);
    await v1.act("DELETE", `/v1/bulk/${job.type}/${job.id}/delete`);
  }
}

export function registerSettingsPages(app: DashApp) {
  app.get(PATHS.settings, (c) => settingsPage(c));

  app.post(`${PATHS.settings}/password`, async (c) => {
    const parsed = ChangePassword.safeParse(await formOf(c));
    if (!parsed.success) return settingsPage(c, { password: firstIssue(parsed.error) }, 400);
    if (!(await passwordMatches(c, parsed.data.current))) return settingsPage(c, { password: WRONG_PASSWORD }, 403);
    const { accountId } = c.get("session");
    await setPassword(c.env.DB, accountId, await hashPassword(parsed.data.password));
    // The reset flow's way of ending sessions (browser sessions and OAuth grants), this browser's kept.
    await endAccountSessions(c.env, accountId, { except: c });
    return c.redirect(`${PATHS.settings}?ok=password-changed`, 303);
  });

  app.post(`${PATHS.settings}/email`, async (c) => {
    const parsed = ChangeEmail.safeParse(await formOf(c));
    if (!parsed.success) return settingsPage(c, { email: firstIssue(parsed.error) }, 400);
    if (!(await passwordMatches(c, parsed.data.current))) return settingsPage(c, { email: WRONG_PASSWORD }, 403);
    const session = c.get("session");
    const email = parsed.data.email.toLowerCase();
    if (email === session.email.toLowerCase()) return settingsPage(c, { email: "That is already your address." }, 400);
    if (await accountByEmail(c.env.DB, email))
      return settingsPage(c, { email: "Another account uses that address." }, 409);
    try {
      const token = await issueToken(c.env.DB, session.accountId, "email", Date.now(), email);
      const link = `${linkOrigin(c.env, c.req.url)}${PATHS.settings}/email/confirm?token=${token}`;
      await mailerFor(c.env).send(emailChangeMessage(email, link));
    } catch (err) {
      logError("dashboard: the email change link could not be sent", err);
      return settingsPage(c, { email: "The message could not be sent. Try again in a few minutes." }, 400);
    }
    return c.redirect(`${PATHS.settings}?ok=email-sent`, 303);
  });

  app.get(`${PATHS.settings}/email/confirm`, async (c) => {
    const session = c.get("session");
    const spent = await spendToken(c.env.DB, c.req.query("token") ?? "", "email", Date.now(), session.accountId);
    const failed = (message: string) =>
      render(
        c,
        <PublicPage title="This link does not work">
          <Notice kind="error">{message}</Notice>
          <p>
            <a href={PATHS.settings}>Back to settings</a>
          </p>
        </PublicPage>,
        400,
      );
    // The link changes the address of the account it was sent for, and only from that account's session.
    if (!spent?.newEmail) return failed("The link expired, was already used, or belongs to another account.");
    if (!(await setEmail(c.env.DB, spent.accountId, spent.newEmail)))
      return failed("Another account took that address in the meantime.");
    forgetMeViews(spent.accountId);
    return c.redirect(`${PATHS.settings}?ok=email-changed`, 303);
  });

  app.get(`${PATHS.settings}/export.json`, async (c) => {
    const data = await exportAccount(c.env.DB, c.get("session").accountId);
    return new Response(JSON.stringify(data, null, 2), {
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="contact-intelligence-account-${c.get("session").accountId}.json"`,
        "cache-control": "no-store",
      },
    });
  });

  app.post(`${PATHS.settings}/delete`, async (c) => {
    const parsed = DeleteAccount.safeParse(await formOf(c));
    if (!parsed.success) return settingsPage(c, { delete: firstIssue(parsed.error) }, 400);
    if (!(await passwordMatches(c, parsed.data.current))) return settingsPage(c, { delete: WRONG_PASSWORD }, 403);
    const { accountId } = c.get("session");
    await deleteBulkJobs(c, accountId);
    // Every browser session and OAuth grant ends first (its tokens must not outlive the account).
    await endAccountSessions(c.env, accountId, { except: c });
    await deleteAccount(c.env.DB, accountId);
    forgetAccountKeys(accountId);
    forgetMeViews(accountId);
    await endSession(c);
    return c.redirect("/", 303);
  });
}
