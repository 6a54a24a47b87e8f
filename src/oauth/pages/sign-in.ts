import { html } from "hono/html";
import { OAUTH_PATHS } from "../../auth/oauth-config.js";
import { errorBox } from "./layout.js";

export function signInBody(opts: { csrf: string; returnTo: string; email?: string; error?: string | null }) {
  return html`<h1>Sign in</h1>
<p>Sign in to your Contact Intelligence account to let an app use it.</p>
${errorBox(opts.error ?? null)}
<form method="post" action="${OAUTH_PATHS.signIn}" ${opts.error ? html`aria-describedby="form-error"` : ""}>
<input type="hidden" name="csrf" value="${opts.csrf}">
<input type="hidden" name="return_to" value="${opts.returnTo}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`;
}
