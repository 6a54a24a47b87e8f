import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DOCS_ASSETS } from "../../src/oauth/pages/docs.js";
import { call, createAccount, json } from "../support/accounts.js";
import {
  authorizeUrl,
  Browser,
  emailOf,
  PASSWORD,
  pkce,
  registerClient,
  SESSION_COOKIE,
  signedIn,
  signInAt,
} from "./support.js";

const register = (body: unknown) =>
  call("/v1/oauth/register", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

describe("authorization server metadata (RFC 8414)", () => {
  it("lists every endpoint, S256 only, the device grant and the scopes", async () => {
    const res = await call("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    const meta = await json(res);
    expect(meta).toMatchObject({
      issuer: "https://api.test",
      authorization_endpoint: "https://api.test/oauth/authorize",
      token_endpoint: "https://api.test/oauth/token",
      revocation_endpoint: "https://api.test/oauth/revoke",
      registration_endpoint: "https://api.test/v1/oauth/register",
      device_authorization_endpoint: "https://api.test/oauth/device_authorization",
      code_challenge_methods_supported: ["S256"],
      scopes_supported: ["api", "account:read"],
    });
    expect(meta.grant_types_supported).toEqual([
      "authorization_code",
      "refresh_token",
      "urn:ietf:params:oauth:grant-type:device_code",
    ]);
  });
});

describe("dynamic client registration (RFC 7591)", () => {
  it("registers a public app with a loopback redirect and says so in the answer", async () => {
    const res = await register({
      redirect_uris: ["http://127.0.0.1:8765/callback"],
      client_name: "CLI",
      token_endpoint_auth_method: "none",
      grant_types: ["urn:ietf:params:oauth:grant-type:device_code"],
    });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.client_id).toBeTruthy();
    expect(body.client_secret).toBeUndefined();
    expect(body.grant_types).toContain("urn:ietf:params:oauth:grant-type:device_code");
  });

  it("gives a confidential app a secret", async () => {
    const client = await registerClient({ token_endpoint_auth_method: "client_secret_post" });
    expect(client.client_secret).toBeTruthy();
  });

  it.each([
    ["plain http to a remote host", "http://app.test/callback"],
    ["a custom scheme", "com.example.app:/callback"],
    ["a fragment", "https://app.test/callback#x"],
    ["no URL at all", "callback"],
  ])("refuses %s as a redirect URI with invalid_redirect_uri", async (_, uri) => {
    const res = await register({ redirect_uris: [uri] });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBe("invalid_redirect_uri");
    expect(body.errors.type).toBe("params_invalid");
    expect(body.error_description).toContain("redirect_uris");
  });

  it("refuses an unknown scope and an unknown grant type with invalid_client_metadata", async () => {
    for (const extra of [{ scope: "api admin" }, { grant_types: ["password"] }]) {
      const res = await register({ redirect_uris: ["https://app.test/cb"], ...extra });
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe("invalid_client_metadata");
    }
  });

  it("appears in the account API's OpenAPI document with the OAuth2 security scheme", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    expect(doc.paths["/oauth/register"].post).toBeTruthy();
    expect(doc.components.securitySchemes.OAuth2.type).toBe("oauth2");
  });
});

describe("signing in for the OAuth pages", () => {
  it("happens on the one sign-in page: the former /sign-in sends the browser there, keeping where to come back", async () => {
    const to = async (path: string) => (await new Browser().fetch(path)).headers.get("location");
    expect(await to("/sign-in?return_to=%2Fdevice%3Fuser_code%3DBCDF-GHJK")).toBe(
      `/app/sign-in?next=${encodeURIComponent("/device?user_code=BCDF-GHJK")}`,
    );
    expect(await to("/sign-in?return_to=%2F%2Fevil.test%2Fx")).toBe("/app/sign-in?next=%2Fdevice");
    expect(await to("/sign-in")).toBe("/app/sign-in?next=%2Fdevice");
  });

  it("opens one session for the dashboard and the OAuth pages", async () => {
    const { browser } = await signedIn();
    expect((await browser.fetch("/device")).status).toBe(200);
    expect((await browser.fetch("/app")).status).toBe(200);
  });

  it("matches the email whatever its case", async () => {
    const a = await createAccount();
    const browser = new Browser();
    const res = await signInAt(browser, (await emailOf(a.accountId)).toUpperCase());
    expect(res.status).toBe(303);
    expect(browser.has(SESSION_COOKIE)).toBe(true);
  });

  it("signs an unconfirmed account in, but lets no app act for it: the consent and device pages say to confirm first", async () => {
    const a = await createAccount({ confirmed: false });
    const browser = new Browser();
    expect((await signInAt(browser, await emailOf(a.accountId))).status).toBe(303);
    const device = await browser.fetch("/device");
    expect(device.status).toBe(403);
    expect(await device.text()).toContain("Confirm your email address first");
    const client = await registerClient();
    const consent = await browser.fetch(authorizeUrl(client.client_id, (await pkce()).challenge));
    expect(consent.status).toBe(403);
  });

  it("never sends the browser back to another site after sign-in", async () => {
    const a = await createAccount();
    const res = await signInAt(new Browser(), await emailOf(a.accountId), PASSWORD, "//evil.test/x");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app");
  });
});

describe("pages for people", () => {
  it("gives the consent and device pages a link home, the reference, a favicon and a line on how to get an account", async () => {
    const { browser } = await signedIn();
    const device = await (await browser.fetch("/device")).text();
    const client = await registerClient();
    const consent = await (await browser.fetch(authorizeUrl(client.client_id, (await pkce()).challenge))).text();
    expect(consent).toContain("Allow");
    for (const [name, page] of Object.entries({ device, consent })) {
      expect(page, name).toContain('<header class="site"><a href="/">Contact Intelligence</a></header>');
      expect(page, name).toContain('<a href="/docs">API reference</a>');
      expect(page, name).toContain('<link rel="icon" href="/favicon.ico">');
      expect(page, name).toMatch(/No account yet\?.*demo-pro@example\.com/s);
    }
    const signIn = await (await new Browser().fetch("/app/sign-in")).text();
    expect(signIn).toMatch(/No account yet\?.*demo-pro@example\.com/s);
  });

  it("names the local demo account only outside production", async () => {
    const { createApp } = await import("../../src/app.js");
    const res = await createApp().fetch(
      new Request("https://api.test/app/sign-in"),
      { ...env, ENVIRONMENT: "production" },
      { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext,
    );
    const page = await res.text();
    expect(page).toContain("No account yet?");
    expect(page).not.toContain("demo-password");
  });

  it("makes form fields use the page's font, and lets pages shrink to a phone's width", async () => {
    const css = await (await call("/assets/pages.css")).text();
    expect(css).toContain("input,button,select,textarea{font:inherit;color:inherit}");
    expect(css).toMatch(/@media \(max-width:30rem\)\{main\{margin:1rem \.5rem;padding:1rem\}\}/);
    // Code in the demo card wraps instead of widening the page.
    expect(css).toMatch(/\.card pre\{[^}]*white-space:pre-wrap;overflow-wrap:anywhere/);
  });

  it("shows a phone-validator demo card on the home page, for the origin it is served from", async () => {
    const page = await (await call("/", { headers: { Accept: "text/html" } })).text();
    expect(page).toContain('<section class="card" id="demo-phone-validator">');
    expect(page).toContain('curl -s "https://api.test/v1/phone-validator?phone=%2B33612345678"');
    expect(page).toContain('BASE_URL=https://api.test npm run agent -- "/phone-validator?phone=%2B33612345678"');
  });

  it("links the API reference from / for a browser and keeps JSON for programs", async () => {
    const page = await call("/", { headers: { Accept: "text/html" } });
    expect(await page.text()).toContain('href="/docs"');
    expect((await json(await call("/"))).docs).toBe("/docs");
  });

  it("serves /docs from this origin only: no CDN, no inline script, scripts allowed from 'self' alone", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    const html = await res.text();
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:|nonce-|unsafe-eval/);
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    const sources = scripts.map((attrs) => /src="([^"]+)"/.exec(attrs)?.[1]).filter((s): s is string => !!s);
    expect(sources).toEqual([DOCS_ASSETS.bundle, DOCS_ASSETS.mount]);
    // Every other script element is data (the configuration), which a browser never runs.
    for (const attrs of scripts.filter((a) => !a.includes("src="))) expect(attrs).toContain('type="application/json"');
    // The assets binding serves each script (what a browser offline, or behind this CSP, loads).
    for (const src of sources) {
      const asset = await env.ASSETS.fetch(`https://api.test${src}`);
      expect(asset.status, src).toBe(200);
      expect(asset.headers.get("content-type"), src).toMatch(/javascript/);
      expect((await asset.text()).length, src).toBeGreaterThan(100);
    }
  });

  it("shows both OpenAPI documents and turns off the reference's external extras (AI chat, MCP, telemetry, web fonts)", async () => {
    const html = await (await call("/docs")).text();
    const config = JSON.parse(
      /<script type="application\/json" id="reference-config">([^<]*)<\/script>/.exec(html)![1]!,
    );
    expect(config.sources.map((s: { url: string }) => s.url)).toEqual(["/v1/openapi.json", "/openapi.json"]);
    expect(config).toMatchObject({
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: "never",
    });
    // Something paints before the ~4 MB bundle has run: the page's own title and links.
    expect(html).toMatch(/<h1>Contact Intelligence API reference<\/h1>/);
    for (const tag of html.match(/<script src=[^>]*>/g) ?? []) expect(tag).toContain(" defer");
  });

  it("has a favicon (not a JSON 404)", async () => {
    const icon = await env.ASSETS.fetch("https://api.test/favicon.ico");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toMatch(/icon/);
    expect(new Uint8Array(await icon.arrayBuffer()).slice(0, 4)).toEqual(new Uint8Array([0, 0, 1, 0]));
    expect(await (await call("/docs")).text()).toContain('<link rel="icon" href="/favicon.ico">');
  });
});
