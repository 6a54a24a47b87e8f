import type { Context } from "hono";
import { html } from "hono/html";
import type { AppBindings } from "../../env.js";
import { renderPage } from "./layout.js";

export function homePage(c: Context<AppBindings>) {
  const origin = new URL(c.req.url).origin;
  return renderPage(
    c,
    "Contact Intelligence",
    html`<h1>Contact Intelligence</h1>
<p>Find and verify email addresses and phone numbers, and enrich people and companies.</p>
<ul>
<li><a href="/app">Your account</a>: sign in or <a href="/app/sign-up">create one</a>, keys, bulk jobs, usage</li>
<li><a href="/docs">API reference</a> (account API and agent surface)</li>
<li><a href="/device">Connect a device</a> with a code</li>
<li><a href="/.well-known/oauth-authorization-server">OAuth 2.0 metadata</a></li>
<li><a href="/llms.txt">llms.txt</a> for agents</li>
</ul>
<section class="card" id="demo-phone-validator">
<h2>Try it: validate a phone number</h2>
<p>With your account's key and secret:</p>
<pre><code>curl -s "${origin}/v1/phone-validator?phone=%2B33612345678" -H "X-Service-Key: $KEY" -H "X-Service-Secret: $SECRET"</code></pre>
<p>As an agent, paying per request (no account):</p>
<pre><code>BASE_URL=${origin} npm run agent -- "/phone-validator?phone=%2B33612345678"</code></pre>
</section>`,
  );
}
