import type { Context } from "hono";
import { raw } from "hono/html";
import { PATHS } from "./config.js";
import { securityHeaders } from "./http.js";

/** Text in an element: only &, < and > need escaping there, so a command keeps its quotes as typed. */
const textOnly = (s: string) => raw(s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"));

/**
 * The page a browser gets at `/`: what the service does and the ways in, in the dashboard's own
 * stylesheet (light and dark, 360 px and up). Programs asking `/` for JSON get the index instead.
 */
export async function homePage(c: Context): Promise<Response> {
  securityHeaders(c);
  const origin = new URL(c.req.url).origin;
  return c.html(
    <>
      {raw("<!doctype html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>Contact Intelligence</title>
          <link rel="stylesheet" href={`${PATHS.assets}/app.css`} />
          <link rel="icon" href="/favicon.ico" />
        </head>
        <body>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <a class="brand" href="/">
              Contact Intelligence
            </a>
            <a class="btn small" href={PATHS.signIn}>
              Sign in
            </a>
          </header>
          <main id="main" class="home">
            <h1>Find, verify and enrich business contacts</h1>
            <p>
              Email addresses and phone numbers of the people at a company, checked before you write, with their
              position and company. From a dashboard, an API or an agent.
            </p>
            <div class="actions">
              <a class="btn primary" href={PATHS.signUp}>
                Create a free account
              </a>
              <a class="btn" href={PATHS.signIn}>
                Sign in
              </a>
            </div>
            <div class="grid">
              <section class="card" aria-labelledby="h-free">
                <h2 id="h-free">Free to start</h2>
                <p>25 searches, 50 verifications and 5 phone lookups a month, no card needed.</p>
              </section>
              <section class="card" aria-labelledby="h-api">
                <h2 id="h-api">For developers</h2>
                <p>
                  The <a href="/docs">API reference</a>, the <a href="/v1/openapi.json">OpenAPI document</a> and OAuth
                  2.0 (<a href="/.well-known/oauth-authorization-server">metadata</a>,{" "}
                  <a href="/device">connect a device</a>
                  ).
                </p>
              </section>
              <section class="card" aria-labelledby="h-agents">
                <h2 id="h-agents">For agents</h2>
                <p>
                  Pay per request with the Machine Payments Protocol, no account: <a href="/llms.txt">llms.txt</a>.
                </p>
              </section>
            </div>
            <section class="card" id="demo-phone-validator">
              <h2 id="h-try">Try it: validate a phone number</h2>
              <p>With your account's key and secret:</p>
              <pre>
                <code>
                  {textOnly(
                    `curl -s "${origin}/v1/phone-validator?phone=%2B33612345678" -H "X-Service-Key: $KEY" -H "X-Service-Secret: $SECRET"`,
                  )}
                </code>
              </pre>
              <p>As an agent, paying per request (no account):</p>
              <pre>
                <code>{textOnly(`BASE_URL=${origin} npm run agent -- "/phone-validator?phone=%2B33612345678"`)}</code>
              </pre>
            </section>
          </main>
        </body>
      </html>
    </>,
  );
}
