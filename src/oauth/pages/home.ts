import type { Context } from "hono";
import { html } from "hono/html";
import type { AppBindings } from "../../env.js";
import { renderPage } from "./layout.js";

export function homePage(c: Context<AppBindings>) {
  return renderPage(
    c,
    "Contact Intelligence",
    html`<h1>Contact Intelligence</h1>
<p>Find and verify email addresses and phone numbers, and enrich people and companies.</p>
<ul>
<li><a href="/docs">API reference</a> (account API and agent surface)</li>
<li><a href="/device">Connect a device</a> with a code</li>
<li><a href="/.well-known/oauth-authorization-server">OAuth 2.0 metadata</a></li>
<li><a href="/llms.txt">llms.txt</a> for agents</li>
</ul>`,
  );
}
