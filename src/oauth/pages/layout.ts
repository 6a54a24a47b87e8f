import type { Context } from "hono";
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { type AppBindings, isProduction } from "../../env.js";

export const STYLESHEET_PATH = "/assets/pages.css";

/** One small stylesheet served from our origin, so the CSP can forbid inline styles and scripts. */
export const STYLESHEET = `:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.5}
body{margin:0;background:Canvas;color:CanvasText}
main{max-width:26rem;margin:3rem auto;padding:1.5rem 2rem;border:1px solid #8884;border-radius:.75rem;box-sizing:border-box}
@media (max-width:30rem){main{margin:1rem .5rem;padding:1rem}}
header.site,footer.site{max-width:26rem;margin:1rem auto;padding:0 .5rem;font-size:.9rem}
header.site a{font-weight:700;text-decoration:none;color:inherit}
.card{border:1px solid #8884;border-radius:.5rem;padding:.75rem;margin:1rem 0;min-width:0}
.card h2{font-size:1.1rem;margin:0 0 .5rem}
.card pre{margin:.5rem 0 0;padding:.5rem;background:#8881;border-radius:.3rem;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem}
h1{font-size:1.4rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin-top:1rem}
input,button,select,textarea{font:inherit;color:inherit}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem;margin-top:.25rem;border:1px solid #888;border-radius:.4rem}
input.code{font-family:ui-monospace,monospace;letter-spacing:.2em;text-transform:uppercase;font-size:1.3rem}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:.4rem;border:1px solid #555;cursor:pointer}
button.primary{background:#1a56db;border-color:#1a56db;color:#fff}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{color:#b91c1c;background:#fee2e2;padding:.6rem .8rem;border-radius:.4rem}
.note{color:GrayText;font-size:.9rem}
ul.scopes{padding-left:1.2rem}
form.note{margin-top:1.5rem;border-top:1px solid #8884;padding-top:1rem}
form.note button{font-size:.9rem;padding:.3rem .8rem;margin-left:.4rem}
.app{font-weight:700}
code{font-family:ui-monospace,monospace}
`;

/** Strict policy for our own pages: no scripts at all, styles from our origin, forms only to us (and, on the consent page, the app's redirect). */
export function pageCsp(formTargets: string[] = []): string {
  return [
    "default-src 'none'",
    `style-src 'self'`,
    "img-src 'self'",
    `form-action 'self'${formTargets.map((t) => ` ${t}`).join("")}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

export function securityHeaders(csp: string): Record<string, string> {
  return {
    "Content-Security-Policy": csp,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    // Not no-referrer: with it browsers send `Origin: null` on our own form posts, which the CSRF check refuses.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
  };
}

/**
 * How a person gets an account: the dashboard's sign-up page; a local server also has demo accounts,
 * whose credentials are only named outside production.
 */
function accountHint(production: boolean) {
  const signUp = html`No account yet? <a href="/app/sign-up">Create one</a> (free).`;
  return production
    ? signUp
    : html`${signUp} On this local server <code>npm start</code> (or <code>npm run seed</code>) also creates demo accounts: <code>demo-pro@example.com</code>, password <code>demo-password</code>.`;
}

export function layout(
  title: string,
  body: HtmlEscapedString | Promise<HtmlEscapedString>,
  opts: { production?: boolean } = {},
) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Contact Intelligence</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<link rel="icon" href="/favicon.ico">
</head>
<body>
<header class="site"><a href="/">Contact Intelligence</a></header>
<main>
${body}
</main>
<footer class="site note"><a href="/">Home</a> · <a href="/docs">API reference</a><br>${accountHint(opts.production ?? false)}</footer>
</body>
</html>`;
}

/** Renders a page with the strict headers. `formTargets` widens form-action (consent redirects). */
export async function renderPage(
  c: Context<AppBindings>,
  title: string,
  body: HtmlEscapedString | Promise<HtmlEscapedString>,
  opts: { status?: 200 | 400 | 403 | 404 | 429; formTargets?: string[]; headers?: Headers } = {},
): Promise<Response> {
  // Through c.html so cookies set earlier on the context (sessions, consent binding) are kept.
  for (const [k, v] of opts.headers ?? []) c.header(k, v, { append: k.toLowerCase() === "set-cookie" });
  for (const [k, v] of Object.entries(securityHeaders(pageCsp(opts.formTargets)))) c.header(k, v);
  return c.html(await layout(title, body, { production: isProduction(c.env) }), opts.status ?? 200);
}

export function errorBox(message: string | null) {
  return message ? html`<p class="error" role="alert" id="form-error">${message}</p>` : "";
}
