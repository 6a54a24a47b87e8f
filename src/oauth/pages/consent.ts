import { html } from "hono/html";
import { OAUTH_PATHS, SCOPES, type Scope } from "../../auth/oauth-config.js";

/** "Not you?": ends the session from any signed-in page. */
export function signOutForm(csrf: string) {
  return html`<form method="post" action="${OAUTH_PATHS.signOut}" class="note">
<input type="hidden" name="csrf" value="${csrf}">
Not you? <button type="submit">Sign out</button>
</form>`;
}

/** Allow / Deny, posted with the CSRF token and the one field that names what is decided. */
export function decisionForm(action: string, csrf: string, field: string, value: string) {
  return html`<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="${field}" value="${value}">
<div class="actions">
<button class="primary" type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`;
}

export function scopeList(scopes: string[]) {
  return html`<ul class="scopes">${scopes.map((s) => html`<li><code>${s}</code>: ${SCOPES[s as Scope] ?? "Unknown permission"}</li>`)}</ul>`;
}

export function consentBody(opts: {
  action: string;
  csrf: string;
  handle: string;
  appName: string;
  redirectHost: string;
  redirectIsLoopback: boolean;
  scopes: string[];
  email: string;
}) {
  return html`<h1>Allow <span class="app">${opts.appName}</span> to use your account?</h1>
<p>Signed in as <strong>${opts.email}</strong>.</p>
<p><span class="app">${opts.appName}</span> is asking to:</p>
${scopeList(opts.scopes)}
<p class="note">After you answer you go back to <strong>${opts.redirectHost}</strong>.${
    opts.redirectIsLoopback ? html` That is a program on your own computer: allow it only if you just started it.` : ""
  } The app name is chosen by the app itself.</p>
${decisionForm(opts.action, opts.csrf, "handle", opts.handle)}
${signOutForm(opts.csrf)}`;
}

export function messageBody(title: string, message: string) {
  return html`<h1>${title}</h1><p>${message}</p>`;
}
