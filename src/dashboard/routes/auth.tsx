import { forgetMeViews } from "../../account/me-cache.js";
import { forgetAccountKeys } from "../../auth/auth-cache.js";
import { passwordProblem } from "../../auth/password-policy.js";
import { signInWithPassword, WRONG_PASSWORD } from "../../auth/password-sign-in.js";
import { isProduction } from "../../env.js";
import { hashPassword } from "../../platform/crypto.js";
import { logError } from "../../request-context.js";
import {
  accountByEmail,
  createAccount,
  issueToken,
  markConfirmed,
  normaliseEmail,
  redeemToken,
  setPassword,
  tokenHolder,
} from "../account-records.js";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PATHS } from "../config.js";
import { clientIp, type DashApp, type DashCtx, entryOf, formOf, render, safeNext, signedIn } from "../http.js";
import {
  alreadyRegisteredMessage,
  confirmationMessage,
  linkOrigin,
  MailNotConfigured,
  mailerFor,
  resetMessage,
} from "../mailer.js";
import { csrfOk, currentSession, endAccountSessions, endSession, formToken, startSession } from "../session.js";
import { throttleMail, throttleSignUp } from "../throttle.js";
import { Csrf, Notice, PublicPage } from "../views/layout.js";

const EMAIL_SHAPE = /^[^\s@]{1,64}@[^\s@]{1,189}\.[^\s@]{2,}$/;
const EXPIRED_FORM = "This form expired. Please try again.";

const tooMany = (c: DashCtx, title: string, seconds: number) => {
  c.header("Retry-After", String(seconds));
  return render(
    c,
    <PublicPage title={title}>
      <Notice kind="error">Too many attempts from here. Try again in {seconds} seconds.</Notice>
    </PublicPage>,
    429,
  );
};

/** Null when mail can be sent; else the page that says so (a deployment without its mail settings). */
function mailUnavailable(c: DashCtx, title: string) {
  try {
    mailerFor(c.env);
    linkOrigin(c.env, c.req.url);
    return null;
  } catch (err) {
    if (!(err instanceof MailNotConfigured)) throw err;
    logError("dashboard: mail is not configured", err);
    return render(
      c,
      <PublicPage title={title}>
        <Notice kind="error">
          This service cannot send email yet, so accounts cannot be created or recovered here. Contact its
          administrator.
        </Notice>
      </PublicPage>,
      503,
    );
  }
}

/** Sends a confirmation or reset link; a failure is logged and said on the page, never a 500. */
async function sendLink(c: DashCtx, kind: "confirm" | "reset", accountId: number, email: string): Promise<boolean> {
  try {
    const token = await issueToken(c.env.DB, accountId, kind);
    const origin = linkOrigin(c.env, c.req.url);
    const message =
      kind === "confirm"
        ? confirmationMessage(email, `${origin}${PATHS.confirm}?token=${token}`)
        : resetMessage(email, `${origin}${PATHS.newPassword}?token=${token}`);
    await mailerFor(c.env).send(message);
    return true;
  } catch (err) {
    logError(`dashboard: the ${kind} link could not be sent`, err);
    return false;
  }
}

const SignInForm = ({
  csrf,
  next,
  email,
  error,
  notice,
  production,
}: {
  csrf: string;
  next: string;
  email?: string;
  error?: string;
  notice?: string;
  /** Outside production the page names the local demo accounts. */
  production: boolean;
}) => (
  <PublicPage title="Sign in">
    {notice ? <Notice kind="success">{notice}</Notice> : null}
    {error ? <Notice kind="error">{error}</Notice> : null}
    <form method="post" action={PATHS.signIn} aria-describedby={error ? "form-error" : undefined}>
      <Csrf token={csrf} />
      <input type="hidden" name="next" value={next} />
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value={email ?? ""} />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <div class="actions">
        <button class="primary" type="submit">
          Sign in
        </button>
        <a href={PATHS.reset}>Forgot your password?</a>
      </div>
    </form>
    <p class="hint">
      No account yet? <a href={PATHS.signUp}>Create one</a>: it is free.
      {production ? null : (
        <>
          {" "}
          On this local server <code>npm start</code> (or <code>npm run seed</code>) also creates demo accounts:{" "}
          <code>demo-pro@example.com</code>, password <code>demo-password</code>.
        </>
      )}
    </p>
  </PublicPage>
);

const SignUpForm = ({ csrf, email, error }: { csrf: string; email?: string; error?: string }) => (
  <PublicPage title="Create your account">
    {error ? <Notice kind="error">{error}</Notice> : null}
    <p>Free plan: 25 searches, 50 verifications and 5 phone lookups a month. No card needed.</p>
    <form method="post" action={PATHS.signUp} aria-describedby={error ? "form-error" : undefined}>
      <Csrf token={csrf} />
      <label for="email">Work email</label>
      <input id="email" name="email" type="email" autocomplete="email" required maxlength={254} value={email ?? ""} />
      <label for="password">Password</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="new-password"
        required
        minlength={MIN_PASSWORD_LENGTH}
        maxlength={MAX_PASSWORD_LENGTH}
        aria-describedby="password-hint"
      />
      <p class="hint" id="password-hint">
        At least {MIN_PASSWORD_LENGTH} characters, not a well-known password, not your address.
      </p>
      <div class="actions">
        <button class="primary" type="submit">
          Create account
        </button>
      </div>
    </form>
    <p class="hint">
      Already have an account? <a href={PATHS.signIn}>Sign in</a>.
    </p>
  </PublicPage>
);

/** This isolate answers the account's keys as confirmed at once (others within the auth cache's 10 s). */
function forgetConfirmed(accountId: number) {
  forgetAccountKeys(accountId);
  forgetMeViews(accountId);
}

const CheckInbox = ({ email }: { email: string }) => (
  <PublicPage title="Check your inbox">
    <Notice kind="success">
      We sent a message to {email}. Open the link in it to confirm your address; it works for 48 hours.
    </Notice>
    <p>
      Then <a href={PATHS.signIn}>sign in</a> with the password you chose. Nothing arrived? Check your spam folder, or
      sign in and ask for a new link.
    </p>
  </PublicPage>
);

/** Tells the owner of a taken address that someone tried to sign up with it; a failure is logged. */
async function sendAlreadyRegistered(c: DashCtx, email: string): Promise<void> {
  try {
    const origin = linkOrigin(c.env, c.req.url);
    await mailerFor(c.env).send(alreadyRegisteredMessage(email, `${origin}${PATHS.signIn}`, `${origin}${PATHS.reset}`));
  } catch (err) {
    logError("dashboard: the already-registered note could not be sent", err);
  }
}

const SIGN_IN_NOTICES: Record<string, string> = {
  "signed-out": "You are signed out.",
  confirmed: "Your address is confirmed. Sign in to continue.",
};

export function registerAuthPages(app: DashApp) {
  app.get(PATHS.signIn, async (c) => {
    const next = safeNext(c.req.query("next"));
    if (await currentSession(c)) return c.redirect(next, 303);
    return render(
      c,
      <SignInForm
        csrf={formToken(c)}
        next={next}
        notice={entryOf(SIGN_IN_NOTICES, c.req.query("ok"))}
        production={isProduction(c.env)}
      />,
    );
  });

  app.post(PATHS.signIn, async (c) => {
    const form = await formOf(c);
    const next = safeNext(form.next);
    const email = normaliseEmail(form.email ?? "").slice(0, 254);
    const password = (form.password ?? "").slice(0, MAX_PASSWORD_LENGTH + 1);
    const again = (error: string, status: 400 | 403) =>
      render(
        c,
        <SignInForm csrf={formToken(c)} next={next} email={email} error={error} production={isProduction(c.env)} />,
        status,
      );
    if (!(await csrfOk(c, null, form.csrf))) return again(EXPIRED_FORM, 403);
    if (!email || !password) return again("Enter your email and password.", 400);
    // An unconfirmed account may sign in: its pages say what to do, and /v1 answers it 401 until then.
    const attempt = await signInWithPassword(c.env, { ip: clientIp(c), email, password, allowUnconfirmed: true });
    if (attempt.outcome === "throttled") return tooMany(c, "Sign in", attempt.retryAfter);
    if (attempt.outcome === "refused") return again(WRONG_PASSWORD, 400);
    await startSession(c, attempt.account.id);
    return c.redirect(next, 303);
  });

  app.get(PATHS.signUp, async (c) => {
    if (await currentSession(c)) return c.redirect(PATHS.overview, 303);
    return render(c, <SignUpForm csrf={formToken(c)} />);
  });

  app.post(PATHS.signUp, async (c) => {
    const form = await formOf(c);
    const email = normaliseEmail(form.email ?? "");
    const password = form.password ?? "";
    const again = (error: string, status: 400 | 403) =>
      render(c, <SignUpForm csrf={formToken(c)} email={email.slice(0, 254)} error={error} />, status);
    if (!(await csrfOk(c, null, form.csrf))) return again(EXPIRED_FORM, 403);
    if (email.length > 254 || !EMAIL_SHAPE.test(email)) return again("Enter a valid email address.", 400);
    const problem = passwordProblem(password, email);
    if (problem) return again(problem, 400);
    const unavailable = mailUnavailable(c, "Create your account");
    if (unavailable) return unavailable;
    const wait = await throttleSignUp(c.env, clientIp(c));
    if (wait !== null) return tooMany(c, "Create your account", wait);
    // The same page whether or not the address has an account: the form tells no one who is a
    // customer (and both cases pay one PBKDF2 run). The owner of a taken address gets a note instead.
    const passwordHash = await hashPassword(password);
    const existing = await accountByEmail(c.env.DB, email);
    const account = existing ? undefined : await createAccount(c.env.DB, email, passwordHash);
    if ((await throttleMail(c.env, clientIp(c), email)) === null) {
      if (account) await sendLink(c, "confirm", account.id, email);
      else await sendAlreadyRegistered(c, email);
    }
    return render(c, <CheckInbox email={email} />);
  });

  // Opening the mailed link confirms the address (the link is the proof; it works once).
  app.get(PATHS.confirm, async (c) => {
    const accountId = await redeemToken(c.env.DB, c.req.query("token") ?? "", "confirm");
    if (accountId === undefined) {
      return render(
        c,
        <PublicPage title="This link does not work">
          <Notice kind="error">The confirmation link expired or was already used.</Notice>
          <p>
            <a href={PATHS.signIn}>Sign in</a> to get a new one.
          </p>
        </PublicPage>,
        400,
      );
    }
    await markConfirmed(c.env.DB, accountId);
    forgetConfirmed(accountId);
    const session = await currentSession(c);
    return c.redirect(
      session?.accountId === accountId ? `${PATHS.overview}?ok=confirmed` : `${PATHS.signIn}?ok=confirmed`,
      303,
    );
  });

  app.post(PATHS.resendConfirmation, signedIn(), async (c) => {
    const session = c.get("session");
    if (session.confirmed) return c.redirect(PATHS.overview, 303);
    const wait = await throttleMail(c.env, clientIp(c), session.email);
    if (wait !== null) return c.redirect(`${PATHS.overview}?error=mail-throttled`, 303);
    const sent = await sendLink(c, "confirm", session.accountId, session.email);
    return c.redirect(`${PATHS.overview}?${sent ? "ok=confirmation-sent" : "error=mail-failed"}`, 303);
  });

  app.post(PATHS.signOut, async (c) => {
    const session = await currentSession(c);
    const form = await formOf(c);
    // No session seen (signed out already, or a cross-site post that the browser sent without the
    // SameSite cookie): nothing to end, and the cookie is left alone.
    if (!session) return c.redirect(`${PATHS.signIn}?ok=signed-out`, 303);
    if (!(await csrfOk(c, session, form.csrf))) return c.text("This form expired. Reload the page and try again.", 403);
    await endSession(c);
    return c.redirect(`${PATHS.signIn}?ok=signed-out`, 303);
  });

  const ResetRequest = ({ csrf, sent, error }: { csrf: string; sent?: boolean; error?: string }) => (
    <PublicPage title="Reset your password">
      {error ? <Notice kind="error">{error}</Notice> : null}
      {sent ? (
        <Notice kind="success">
          If an account uses this address, we sent it a link to choose a new password. It works for one hour.
        </Notice>
      ) : (
        <form method="post" action={PATHS.reset}>
          <Csrf token={csrf} />
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="email" required />
          <div class="actions">
            <button class="primary" type="submit">
              Send me a link
            </button>
            <a href={PATHS.signIn}>Back to sign in</a>
          </div>
        </form>
      )}
    </PublicPage>
  );

  app.get(PATHS.reset, (c) => render(c, <ResetRequest csrf={formToken(c)} />));

  app.post(PATHS.reset, async (c) => {
    const form = await formOf(c);
    const email = normaliseEmail(form.email ?? "");
    if (!(await csrfOk(c, null, form.csrf)))
      return render(c, <ResetRequest csrf={formToken(c)} error={EXPIRED_FORM} />, 403);
    if (email.length > 254 || !EMAIL_SHAPE.test(email))
      return render(c, <ResetRequest csrf={formToken(c)} error="Enter a valid email address." />, 400);
    const unavailable = mailUnavailable(c, "Reset your password");
    if (unavailable) return unavailable;
    const wait = await throttleMail(c.env, clientIp(c), email);
    if (wait !== null) return tooMany(c, "Reset your password", wait);
    // The same answer whether or not the address has an account: the form tells no one who is a customer.
    const account = await accountByEmail(c.env.DB, email);
    if (account && account.kind === "user" && !account.blocked) await sendLink(c, "reset", account.id, account.email);
    return render(c, <ResetRequest csrf="" sent />);
  });

  const NewPassword = ({ csrf, token, error }: { csrf: string; token: string; error?: string }) => (
    <PublicPage title="Choose a new password">
      {error ? <Notice kind="error">{error}</Notice> : null}
      <form method="post" action={PATHS.newPassword}>
        <Csrf token={csrf} />
        <input type="hidden" name="token" value={token} />
        <label for="password">New password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength={MIN_PASSWORD_LENGTH}
          maxlength={MAX_PASSWORD_LENGTH}
          aria-describedby="password-hint"
        />
        <p class="hint" id="password-hint">
          At least {MIN_PASSWORD_LENGTH} characters, not a well-known password, not your address. Every other session of
          this account is signed out.
        </p>
        <div class="actions">
          <button class="primary" type="submit">
            Save and sign in
          </button>
        </div>
      </form>
    </PublicPage>
  );
  const deadLink = (c: DashCtx) =>
    render(
      c,
      <PublicPage title="This link does not work">
        <Notice kind="error">The reset link expired or was already used.</Notice>
        <p>
          <a href={PATHS.reset}>Ask for a new one</a>.
        </p>
      </PublicPage>,
      400,
    );

  app.get(PATHS.newPassword, async (c) => {
    const token = c.req.query("token") ?? "";
    if (!(await tokenHolder(c.env.DB, token, "reset"))) return deadLink(c);
    return render(c, <NewPassword csrf={formToken(c)} token={token} />);
  });

  app.post(PATHS.newPassword, async (c) => {
    const form = await formOf(c);
    const token = form.token ?? "";
    const password = form.password ?? "";
    if (!(await csrfOk(c, null, form.csrf)))
      return render(c, <NewPassword csrf={formToken(c)} token={token} error={EXPIRED_FORM} />, 403);
    const holder = await tokenHolder(c.env.DB, token, "reset");
    if (!holder) return deadLink(c);
    const problem = passwordProblem(password, holder.email);
    if (problem) return render(c, <NewPassword csrf={formToken(c)} token={token} error={problem} />, 400);
    const hash = await hashPassword(password);
    const accountId = await redeemToken(c.env.DB, token, "reset");
    if (accountId === undefined) return deadLink(c);
    await setPassword(c.env.DB, accountId, hash);
    // The link reached the mailbox: the address is confirmed too.
    await markConfirmed(c.env.DB, accountId);
    forgetConfirmed(accountId);
    await endAccountSessions(c.env, accountId);
    await startSession(c, accountId);
    return c.redirect(`${PATHS.overview}?ok=password-reset`, 303);
  });
}
