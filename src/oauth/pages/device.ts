import { html } from "hono/html";
import { OAUTH_PATHS } from "../../auth/oauth-config.js";
import { decisionForm, scopeList, signOutForm } from "./consent.js";
import { errorBox } from "./layout.js";

export function deviceEntryBody(opts: { csrf: string; userCode: string; email: string; error?: string | null }) {
  return html`<h1>Connect a device</h1>
<p>Signed in as <strong>${opts.email}</strong>. Enter the code your device shows.</p>
${errorBox(opts.error ?? null)}
<form method="post" action="${OAUTH_PATHS.devicePage}">
<input type="hidden" name="csrf" value="${opts.csrf}">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" class="code" type="text" inputmode="text" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" maxlength="12" placeholder="BCDF-GHJK" required value="${opts.userCode}" ${opts.error ? html`aria-describedby="form-error"` : ""}>
<div class="actions"><button class="primary" type="submit">Continue</button></div>
</form>
${signOutForm(opts.csrf)}`;
}

export function deviceConfirmBody(opts: {
  csrf: string;
  userCode: string;
  appName: string;
  scopes: string[];
  email: string;
}) {
  return html`<h1>Allow <span class="app">${opts.appName}</span> on your device?</h1>
<p>Signed in as <strong>${opts.email}</strong>. Code <code>${opts.userCode}</code>.</p>
<p><span class="app">${opts.appName}</span> is asking to:</p>
${scopeList(opts.scopes)}
<p class="note">Only allow this if you started the sign-in on your device yourself. The app name is chosen by the app itself.</p>
${decisionForm(`${OAUTH_PATHS.devicePage}/decision`, opts.csrf, "user_code", opts.userCode)}`;
}
