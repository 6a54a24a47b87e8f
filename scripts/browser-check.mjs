// `npm run test:browser`: drives Debian's Chromium (headless, puppeteer-core) through the OAuth pages
// of a throwaway `wrangler dev` on a free port (BROWSER_CHECK_PORT overrides): sign-in → consent →
// redirect with a code (then the code is exchanged and the token used on /v1/me), the device page
// (then the device's poll gets a token), every page at a 360 px phone width (no horizontal scroll,
// the home page's demo card inside the screen, form fields in the page font, a favicon), and /docs
// with every request off this machine blocked (it must still render, first paint under 1 s); then
// the account dashboard (/app) as a new customer meets it (scripts/lib/dashboard-check.mjs): sign up,
// confirm with the link the local mailer printed, sign in, create a key, one "Try it" call, a
// 1,000-row CSV followed to 100 %, its download, the key revoked, and every page's checks.
// Screenshots go to SCREENS_DIR (default /work/notes/screens). Not part of `npm test`.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { checkDashboard, mailLinkIn } from "./lib/dashboard-check.mjs";
import {
  applyMigrations,
  ensureDevVars,
  passwordHash,
  root,
  wrangler as runWrangler,
  sqlText,
  wranglerBin,
} from "./lib/local.mjs";

const freePort = () =>
  new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
const port = Number(process.env.BROWSER_CHECK_PORT ?? (await freePort()));
// The local secrets `npm start` writes (the payment gate needs MPP_SECRET_KEY for the top-up walk).
ensureDevVars();
const base = `http://localhost:${port}`;
const screens = process.env.SCREENS_DIR ?? "/work/notes/screens";
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const REDIRECT = "http://127.0.0.1:8899/callback";
const EMAIL = "browser-check@example.com";
const PASSWORD = "browser-check-password";

const state = mkdtempSync(path.join(tmpdir(), "browser-check-"));
const wrangler = (args) => runWrangler(args, { persistTo: state });
const step = (msg) => console.log(`• ${msg}`);
function assert(cond, msg) {
  if (!cond) throw new Error(`check failed: ${msg}`);
}

async function waitForServer() {
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(`${base}/.well-known/oauth-authorization-server`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("wrangler dev did not come up");
}

async function form(pathname, body) {
  const res = await fetch(`${base}${pathname}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body),
  });
  return { status: res.status, body: await res.json() };
}

async function challengePair() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

let server;
let browser;
let mailLink;
try {
  mkdirSync(screens, { recursive: true });
  applyMigrations({ persistTo: state });
  const hash = passwordHash(PASSWORD);
  wrangler([
    "d1",
    "execute",
    "DB",
    "--local",
    "--command",
    `INSERT INTO accounts (email, first_name, confirmed, plan, kind, password_hash) VALUES ('${EMAIL}', 'Browser', 1, 'pro', 'user', '${hash}')`,
  ]);

  server = spawn(
    process.execPath,
    [
      wranglerBin,
      "dev",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      state,
      "--var",
      "ENVIRONMENT:development",
    ],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    },
  );
  // The server's output is kept: the local mailer prints the dashboard's confirmation links there.
  let serverOutput = "";
  server.stderr.on("data", (d) => (serverOutput += d));
  server.stdout.on("data", (d) => (serverOutput += d));
  mailLink = async (email, kind) => {
    for (let i = 0; i < 100; i++) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes, which start with ESC.
      const link = mailLinkIn(serverOutput.replace(/\x1b\[[0-9;]*m/g, ""), email, kind);
      if (link) return link;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no ${kind} link for ${email} in the server's output`);
  };
  await waitForServer();
  step(`wrangler dev is up on ${base}`);

  const reg = await fetch(`${base}/v1/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "Acme CRM", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
  });
  const client = await reg.json();
  assert(reg.status === 201, `registration answered ${reg.status}`);
  step(`registered client ${client.client_id}`);

  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      `--user-data-dir=${path.join(state, "chromium")}`,
    ],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 800, height: 640 });
  const cspViolations = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  // The app's callback does not exist: answer it from here and keep the URL.
  await page.setRequestInterception(true);
  page.on("request", (req) => {
    if (req.url().startsWith(REDIRECT))
      return req.respond({ status: 200, contentType: "text/html", body: "<h1>Acme CRM callback</h1>" });
    req.continue();
  });

  // 1. Authorization code with PKCE through sign-in and consent.
  const { verifier, challenge } = await challengePair();
  const q = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope: "api",
    state: "xyz",
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  await page.goto(`${base}/oauth/authorize?${q}`);
  assert(new URL(page.url()).pathname === "/app/sign-in", `expected the sign-in page, got ${page.url()}`);
  await page.type("#email", EMAIL);
  await page.type("#password", PASSWORD);
  await page.screenshot({ path: path.join(screens, "01-sign-in.png") });
  step("sign-in page filled (01-sign-in.png)");
  await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
  if (new URL(page.url()).pathname !== "/oauth/authorize")
    console.error(await page.$eval("main", (m) => m.textContent), await page.cookies());
  assert(new URL(page.url()).pathname === "/oauth/authorize", `expected the consent page, got ${page.url()}`);
  assert((await page.content()).includes("Acme CRM"), "consent page names the app");
  await page.screenshot({ path: path.join(screens, "02-consent.png") });
  step("consent page (02-consent.png)");
  await Promise.all([page.waitForNavigation(), page.click("button[value=approve]")]);
  const callback = new URL(page.url());
  assert(callback.origin + callback.pathname === REDIRECT, `expected the app's callback, got ${page.url()}`);
  assert(callback.searchParams.get("state") === "xyz", "state returned");
  const code = callback.searchParams.get("code");
  assert(code, "redirect carries a code");
  await page.screenshot({ path: path.join(screens, "03-callback.png") });
  step(`redirected to the app with a code (03-callback.png)`);
  const tokens = await form("/oauth/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    code_verifier: verifier,
  });
  assert(tokens.status === 200, `code exchange answered ${tokens.status} ${JSON.stringify(tokens.body)}`);
  const me = await fetch(`${base}/v1/me`, { headers: { Authorization: `Bearer ${tokens.body.access_token}` } });
  assert(me.status === 200, `/v1/me with the bearer token answered ${me.status}`);
  step("code exchanged; bearer token works on /v1/me");

  // 2. Device flow: the device asks, the (signed-in) person types the code.
  const device = await form("/oauth/device_authorization", { client_id: client.client_id, scope: "account:read" });
  assert(device.status === 200, `device authorization answered ${device.status}`);
  await page.goto(device.body.verification_uri);
  await page.type("#user_code", device.body.user_code.toLowerCase());
  await page.screenshot({ path: path.join(screens, "04-device-code.png") });
  step(`device page with code ${device.body.user_code} typed (04-device-code.png)`);
  await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
  assert((await page.content()).includes("Acme CRM"), "device confirmation names the app");
  await page.screenshot({ path: path.join(screens, "05-device-confirm.png") });
  step("device confirmation (05-device-confirm.png)");
  await Promise.all([page.waitForNavigation(), page.click("button[value=approve]")]);
  assert((await page.content()).includes("Device connected"), "device approved");
  await page.screenshot({ path: path.join(screens, "06-device-done.png") });
  step("device approved (06-device-done.png)");
  const polled = await form("/oauth/token", {
    grant_type: "urn:ietf:params:oauth:grant-type:device_code",
    device_code: device.body.device_code,
    client_id: client.client_id,
  });
  assert(
    polled.status === 200 && polled.body.scope === "account:read",
    `device poll answered ${polled.status} ${JSON.stringify(polled.body)}`,
  );
  step("device poll got a token with scope account:read");

  // 3. The landing page links the reference.
  await page.goto(`${base}/`);
  await page.screenshot({ path: path.join(screens, "07-home.png") });
  assert((await page.$("a[href='/docs']")) !== null, "home links /docs");
  step("home page links /docs (07-home.png)");

  // 4. A phone's width: 360 px, no horizontal scroll on any page; the demo card inside the screen.
  await page.setViewport({ width: 360, height: 740 });
  const fitsWidth = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  await page.goto(`${base}/`);
  assert(await fitsWidth(), "home page scrolls sideways at 360 px");
  const card = await page.$eval("#demo-phone-validator", (el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right };
  });
  assert(
    card.left >= 0 && card.right <= 360,
    `the phone-validator demo card spans ${card.left}..${card.right} px on a 360 px screen`,
  );
  await page.screenshot({ path: path.join(screens, "08-home-360.png"), fullPage: true });
  step("home page and its phone-validator demo card fit 360 px (08-home-360.png)");
  await page.goto(`${base}/device`);
  assert(await fitsWidth(), "device page scrolls sideways at 360 px");
  assert((await page.$("header.site a[href='/']")) !== null, "device page links home");
  await page.screenshot({ path: path.join(screens, "09-device-360.png"), fullPage: true });
  const q2 = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope: "api",
    state: "s2",
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  await page.goto(`${base}/oauth/authorize?${q2}`);
  assert((await page.content()).includes("Acme CRM"), "consent page again");
  assert(await fitsWidth(), "consent page scrolls sideways at 360 px");
  await page.screenshot({ path: path.join(screens, "10-consent-360.png"), fullPage: true });
  // A browser with no session: this one is signed in, and a signed-in /app/sign-in goes on to /app.
  const signedOut = await browser.createBrowserContext();
  const signInPage = await signedOut.newPage();
  await signInPage.setViewport({ width: 360, height: 740 });
  await signInPage.goto(`${base}/app/sign-in`);
  assert(
    await signInPage.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    "sign-in page scrolls sideways at 360 px",
  );
  const fonts = await signInPage.evaluate(() => ({
    body: getComputedStyle(document.body).fontFamily,
    input: getComputedStyle(document.querySelector("#email")).fontFamily,
    button: getComputedStyle(document.querySelector("button[type=submit]")).fontFamily,
  }));
  assert(
    fonts.input === fonts.body && fonts.button === fonts.body,
    `form fields use another font than the page: ${JSON.stringify(fonts)}`,
  );
  assert((await signInPage.content()).includes("No account yet?"), "sign-in page says how to get an account");
  await signInPage.screenshot({ path: path.join(screens, "11-sign-in-360.png"), fullPage: true });
  step("sign-in, device and consent pages fit 360 px, link home, fields in the page font (09-11)");
  // What the browser asks for on its own (the pages' CSP forbids scripted fetches).
  const iconResponse = await signInPage.goto(`${base}/favicon.ico`);
  const icon = { status: iconResponse.status(), type: iconResponse.headers()["content-type"] };
  assert(icon.status === 200 && /icon/.test(icon.type ?? ""), `favicon answered ${icon.status} ${icon.type}`);
  step(`favicon.ico is an icon (${icon.type})`);

  // 5. /docs with nothing but this machine reachable: every other request is blocked and recorded.
  const docs = await browser.newPage();
  await docs.setViewport({ width: 1280, height: 900 });
  const offsite = [];
  const failed = [];
  const docsConsole = [];
  docs.on("console", (m) => {
    docsConsole.push(`${m.type()}: ${m.text()}`);
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  docs.on("pageerror", (err) => docsConsole.push(`pageerror: ${err.message}`));
  await docs.setRequestInterception(true);
  docs.on("request", (req) => {
    const host = new URL(req.url()).hostname;
    if (req.url().startsWith("data:") || req.url().startsWith("blob:") || host === "localhost" || host === "127.0.0.1")
      return req.continue();
    offsite.push(req.url());
    req.abort("internetdisconnected");
  });
  docs.on("requestfailed", (req) => failed.push(req.url()));
  const started = Date.now();
  await docs.goto(`${base}/docs`, { waitUntil: "domcontentloaded" });
  try {
    await docs.waitForFunction(
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text (one line per block), which textContent does not give
      () => /Open Group - Finder/.test(document.body.innerText) && /Open Group - Phones/.test(document.body.innerText),
      { timeout: 30_000 },
    );
  } catch (err) {
    await docs.screenshot({ path: path.join(screens, "12-docs-offline-failed.png") });
    console.error(
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text (one line per block), which textContent does not give
      `/docs did not render. Console:\n${docsConsole.join("\n")}\nBlocked: ${offsite.join(", ")}\nFailed: ${failed.join(", ")}\nText: ${(await docs.evaluate(() => document.body.innerText)).slice(0, 500)}`,
    );
    throw err;
  }
  const rendered = Date.now() - started;
  const fcp = await docs.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null);
  await docs.screenshot({ path: path.join(screens, "12-docs-offline.png") });
  assert(offsite.length === 0, `/docs asked for other hosts: ${offsite.join(", ")}`);
  assert(failed.length === 0, `/docs requests failed: ${failed.join(", ")}`);
  assert(fcp !== null && fcp < 1000, `/docs first contentful paint ${fcp} ms (must be under 1 s)`);
  const finderGroups = await docs.evaluate(
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text (one line per block), which textContent does not give
    () => document.body.innerText.split("\n").filter((t) => /^Open Group - Finders?$/.test(t.trim())).length,
  );
  assert(finderGroups === 1, `${finderGroups} "Finder"/"Finders" groups in the reference's sidebar`);
  const docsErrors = docsConsole.filter((l) => /^(error|pageerror)/.test(l));
  assert(docsErrors.length === 0, `/docs console errors: ${docsErrors.join(" | ")}`);
  step(
    `/docs offline: first paint ${Math.round(fcp)} ms, reference rendered in ${rendered} ms, 0 requests off this machine, "Finder" groups in the sidebar: ${finderGroups} (12-docs-offline.png)`,
  );
  await docs.setViewport({ width: 360, height: 740 });
  const docsFits = await docs.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  step(`/docs at 360 px: ${docsFits ? "no horizontal scroll" : "scrolls sideways (the reference UI's own layout)"}`);

  assert(cspViolations.length === 0, `CSP violations: ${cspViolations.join(" | ")}`);

  // 6. The account dashboard, as a new customer meets it: in a browser signed out of the session above.
  const cookies = await (await browser.newPage()).createCDPSession();
  await cookies.send("Network.clearBrowserCookies");
  await checkDashboard({
    base,
    browser,
    screens,
    mailLink: (email, kind) => mailLink(email, kind),
    setPlan: (email, plan) =>
      wrangler([
        "d1",
        "execute",
        "DB",
        "--local",
        "--command",
        `UPDATE accounts SET plan = ${sqlText(plan)} WHERE email = ${sqlText(email)}`,
      ]),
    step,
    assert,
  });
  console.log("browser check passed");
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await browser?.close();
  server?.kill("SIGTERM");
  rmSync(state, { recursive: true, force: true });
}
