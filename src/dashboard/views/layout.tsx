import { raw } from "hono/html";
import type { Child, FC } from "hono/jsx";
import { PATHS } from "../config.js";
import type { Session } from "../session.js";

/** The pages of the signed-in dashboard, in the order the navigation lists them. */
export const NAV = [
  { key: "overview", label: "Overview", href: PATHS.overview },
  { key: "keys", label: "API keys", href: PATHS.keys },
  { key: "try", label: "Try it", href: PATHS.tryIt },
  { key: "bulk", label: "Bulk", href: PATHS.bulk },
  { key: "logs", label: "Request logs", href: PATHS.logs },
  { key: "leads", label: "Leads", href: PATHS.leads },
  { key: "lists", label: "Lists", href: PATHS.lists },
  { key: "attributes", label: "Lead attributes", href: PATHS.attributes },
  { key: "webhooks", label: "Webhooks", href: PATHS.webhooks },
  { key: "flags", label: "Report a wrong result", href: PATHS.flags },
  { key: "plans", label: "Plans and credits", href: PATHS.plans },
  { key: "team", label: "Team", href: PATHS.team },
  { key: "settings", label: "Settings", href: PATHS.settings },
] as const;
export type NavKey = (typeof NAV)[number]["key"];

const Head: FC<{ title: string; csrf?: string }> = ({ title, csrf }) => (
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>{`${title} · Contact Intelligence`}</title>
    {csrf ? <meta name="csrf-token" content={csrf} /> : null}
    <link rel="stylesheet" href={`${PATHS.assets}/app.css`} />
    <link rel="icon" href="/favicon.ico" />
  </head>
);

/** A page of the signed-in dashboard: header, navigation, the page, and the script when it needs one. */
export const AppPage: FC<{
  title: string;
  session: Session;
  active: NavKey | null;
  script?: boolean;
  /** The overview's `?ok=` after sign-up or a resend, said inside the one "confirm your address" notice. */
  unconfirmedNote?: string;
  children?: Child;
}> = ({ title, session, active, script, unconfirmedNote, children }) => (
  <>
    {raw("<!doctype html>")}
    <html lang="en">
      <Head title={title} csrf={session.csrf} />
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href={PATHS.overview}>
            Contact Intelligence
          </a>
          <span class="who">{session.email}</span>
          <form method="post" action={PATHS.signOut} class="inline">
            <input type="hidden" name="csrf" value={session.csrf} />
            <button type="submit" class="small">
              Sign out
            </button>
          </form>
        </header>
        <div class="shell">
          <nav class="side" aria-label="Dashboard">
            <ul>
              {NAV.map((item) => (
                <li>
                  <a href={item.href} aria-current={item.key === active ? "page" : undefined}>
                    {item.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <main id="main" tabindex={-1}>
            {session.confirmed ? null : <UnconfirmedNotice session={session} note={unconfirmedNote} />}
            <h1>{title}</h1>
            {children}
          </main>
        </div>
        <footer class="site">
          <a href="/docs">API reference</a> · <a href="/v1/openapi.json">OpenAPI document</a>
        </footer>
        <p id="live" class="sr-only" aria-live="polite"></p>
        {script ? <script src={`${PATHS.assets}/app.js`} defer></script> : null}
      </body>
    </html>
  </>
);

const UnconfirmedNotice: FC<{ session: Session; note?: string }> = ({ session, note }) => (
  <div class="warning" role="status" id="confirm">
    {note === "welcome" ? "Your account is ready. " : ""}
    <strong>Confirm your email address</strong>:{" "}
    {note === "confirmation-sent" ? "we sent a new link to " : "open the link we sent to "}
    {session.email}. Until then searches, keys and lists stay locked.
    <form method="post" action={PATHS.resendConfirmation} class="inline">
      <input type="hidden" name="csrf" value={session.csrf} />{" "}
      <button type="submit" class="link">
        Send the link again
      </button>
    </form>
  </div>
);

/** The sign-in, sign-up and password pages: one card in the middle. */
export const PublicPage: FC<{ title: string; children?: Child }> = ({ title, children }) => (
  <>
    {raw("<!doctype html>")}
    <html lang="en">
      <Head title={title} />
      <body>
        <header class="top">
          <a class="brand" href="/">
            Contact Intelligence
          </a>
        </header>
        <main id="main" class="narrow">
          <div class="card">
            <h1>{title}</h1>
            {children}
          </div>
        </main>
      </body>
    </html>
  </>
);

export const Notice: FC<{ kind: "error" | "success" | "notice" | "warning"; children?: Child }> = ({
  kind,
  children,
}) => (
  <div class={kind} role={kind === "error" ? "alert" : "status"} id={kind === "error" ? "form-error" : undefined}>
    {children}
  </div>
);

export const Csrf: FC<{ token: string }> = ({ token }) => <input type="hidden" name="csrf" value={token} />;

/** A table that scrolls inside its own box on a narrow screen (reachable by keyboard; a labelled section is a region). */
export const TableWrap: FC<{ label: string; children?: Child }> = ({ label, children }) => (
  <section class="table-wrap" tabindex={0} aria-label={label}>
    {children}
  </section>
);

/** Previous / next links for a paginated /v1 list. */
export const Pager: FC<{ page: number; pages: number; href: (page: number) => string; total?: number }> = ({
  page,
  pages,
  href,
  total,
}) =>
  pages > 1 ? (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? (
        <a class="btn small" href={href(page - 1)}>
          Previous
        </a>
      ) : null}
      <span>
        Page {page} of {pages}
        {total !== undefined ? ` (${total.toLocaleString("en")})` : ""}
      </span>
      {page < pages ? (
        <a class="btn small" href={href(page + 1)}>
          Next
        </a>
      ) : null}
    </nav>
  ) : null;
