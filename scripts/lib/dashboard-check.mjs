// The dashboard part of `npm run test:browser` (scripts/browser-check.mjs): a person's first
// session, in real Chromium, against a running server: sign up (one notice, the checklist), confirm
// (the link the local mailer printed), sign out and in, create a key, one "Try it" call (a result
// card, offline), a 1,000-row CSV uploaded by drag and drop and followed to 100 % without a reload,
// its results downloaded, the key revoked; a top-up with the development payment method (balance
// and receipt); a team (invite, join with the member's own password, the member's search logged as
// theirs, removal ends their session); a password change that signs the other session out; a
// keyboard-only try. Then every page, with what must hold on each: no sideways scroll at 360 px,
// every control labelled, a visible focus ring, no request off this machine, first paint under
// 500 ms and the transfer under 100 KB; screenshots of every page at 1280 and 360 px, light and
// dark. Screenshots go to `${screens}/dash-*.png`.
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";

const PASSWORD = "browser-check-password-1";
const ROWS = 1_000;

/** The pages of a signed-in account, as the navigation lists them. */
export const DASHBOARD_PAGES = [
  "/app",
  "/app/keys",
  "/app/try",
  "/app/bulk",
  "/app/logs",
  "/app/leads",
  "/app/lists",
  "/app/webhooks",
  "/app/attributes",
  "/app/flags",
  "/app/plans",
  "/app/team",
  "/app/settings",
];

export async function checkDashboard({ base, browser, screens, mailLink, setPlan, step, assert }) {
  const shot = (page, name, fullPage = true) =>
    page.screenshot({ path: path.join(screens, `dash-${name}.png`), fullPage });
  const offsite = [];
  const consoleErrors = [];
  const newPage = async (width = 1280, height = 860) => {
    const page = await browser.newPage();
    await page.setViewport({ width, height });
    await page.setRequestInterception(true);
    page.on("request", (req) => {
      const host = new URL(req.url()).hostname;
      if (
        req.url().startsWith("data:") ||
        req.url().startsWith("blob:") ||
        host === "localhost" ||
        host === "127.0.0.1"
      )
        return req.continue();
      offsite.push(req.url());
      req.abort("internetdisconnected");
    });
    page.on("console", (m) => m.type() === "error" && consoleErrors.push(`${page.url()}: ${m.text()}`));
    page.on("pageerror", (err) => consoleErrors.push(`${page.url()}: ${err.message}`));
    page.on("dialog", (d) => d.accept());
    return page;
  };
  const submit = (page, selector) => Promise.all([page.waitForNavigation(), page.click(selector)]);
  const pathOf = (page) => new URL(page.url()).pathname;
  // biome-ignore lint/performance/useDomNodeTextContent: the text as shown, which textContent does not give
  const text = (page) => page.$eval("main", (m) => m.innerText);

  await browser
    .defaultBrowserContext()
    .overridePermissions(base, ["clipboard-read", "clipboard-write", "clipboard-sanitized-write"]);
  const page = await newPage();
  const email = `person-${Date.now()}@example.com`;

  // 1. Sign up: the account exists at once, unconfirmed. The answer is "Check your inbox" whether
  // or not the address was taken (no enumeration), so it does not sign in: the person signs in next.
  await page.goto(`${base}/app/sign-up`);
  await page.type("#email", email);
  await page.type("#password", PASSWORD);
  await shot(page, "01-sign-up");
  await submit(page, "button[type=submit]");
  assert((await text(page)).includes("Check your inbox"), `after sign-up: ${page.url()}`);
  await page.goto(`${base}/app/sign-in`);
  await page.type("#email", email);
  await page.type("#password", PASSWORD);
  await submit(page, "button[type=submit]");
  assert(pathOf(page) === "/app", `after the first sign-in: ${page.url()}`);
  const first = await text(page);
  assert(first.includes("Confirm your email address"), "the overview asks to confirm the address");
  assert(!first.includes("account_unconfirmed"), "the overview says the expected state in words, not as an error code");
  assert(
    (await page.$$eval("main .warning, main .error, main .success", (els) => els.length)) === 1,
    "one notice on the first day, not three",
  );
  assert(first.includes("Get started") && first.includes("Create your first API key"), "the onboarding checklist");
  await shot(page, "02-unconfirmed");
  step(`signed up as ${email}: one notice (confirm), the get-started checklist, no error code (dash-01, dash-02)`);

  // 2. Confirm with the link the local mailer printed.
  const link = await mailLink(email, "confirm");
  assert(link.startsWith(`${base}/app/confirm?token=`), `confirmation link ${link}`);
  await page.goto(link);
  assert((await text(page)).includes("Your email address is confirmed"), "confirmed");
  step(`opened the mailed confirmation link (printed by the local mailer)`);

  // 3. Sign out, sign in again.
  await submit(page, "header form button");
  assert(pathOf(page) === "/app/sign-in", `after sign-out: ${page.url()}`);
  await page.type("#email", email);
  await page.type("#password", PASSWORD);
  await shot(page, "03-sign-in");
  await submit(page, "button[type=submit]");
  assert(pathOf(page) === "/app", `after sign-in: ${page.url()}`);
  // Enough credits for a 1,000-row job (a free plan has 5 phone credits): an operator's plan change.
  setPlan(email, "scale");
  step("signed out and in again (dash-03); plan set to scale by the operator (wrangler d1)");

  // 4. Create a key: the secret is shown once, with copy buttons, and works on /v1.
  await page.goto(`${base}/app/keys`);
  await page.type("#key-name", "Browser check");
  await submit(page, "form[action='/app/keys'] button[type=submit]");
  const key = await page.$eval("#new-key", (e) => e.textContent.trim());
  const secret = await page.$eval("#new-secret", (e) => e.textContent.trim());
  await page.click("button[data-copy=new-secret]");
  await page.waitForFunction(() => document.querySelector("button[data-copy=new-secret]").textContent === "Copied", {
    timeout: 5_000,
  });
  assert((await page.evaluate(() => navigator.clipboard.readText())) === secret, "the clipboard holds the secret");
  await shot(page, "04-key-created");
  const me = await fetch(`${base}/v1/me`, { headers: { "X-Service-Key": key, "X-Service-Secret": secret } });
  assert(me.status === 200, `the new key on /v1/me answered ${me.status}`);
  await page.reload();
  assert(!(await page.content()).includes(secret), "the secret is shown once");
  step(`created key ${key}: secret shown once, copied, works on /v1/me (dash-04)`);

  // 5. One "Try it" call on the default capability (works offline): a result card, billed, counted
  // under the dashboard searches, the JSON a click away.
  await page.goto(`${base}/app/try`);
  const before = await text(page);
  assert(before.includes("Check a phone number"), "Try it opens on the phone check (it works offline)");
  assert(
    /You have [\d,]+ phone credits left/.test(before),
    `the quota is shown before the try: ${before.slice(0, 300)}`,
  );
  await page.type("#p-phone", "+33612345678");
  await submit(page, "form[method=post] button.primary");
  const answer = await text(page);
  assert(/Mobile · country FR/.test(answer), `try it shows a phone card: ${answer.slice(0, 400)}`);
  assert(answer.includes("Billed: 1 phone credit"), `try it says the cost: ${answer.slice(0, 400)}`);
  assert(!answer.includes('"e164_format"'), "the JSON is folded away");
  await page.click("details summary");
  assert((await text(page)).includes('"e164_format": "+33612345678"'), "the JSON is one click away");
  await shot(page, "05-try-it");
  const limits = await (
    await fetch(`${base}/v1/rate-limits`, { headers: { "X-Service-Key": key, "X-Service-Secret": secret } })
  ).json();
  assert(limits.data.searches.daily.used === 1, `searches used today: ${JSON.stringify(limits.data.searches)}`);
  step(
    "ran one Try it call (phone-validator): a phone card, billed 1 phone credit, counted under searches, JSON one click away (dash-05)",
  );

  // 6. Bulk: a 1,000-row CSV dropped on the upload form, previewed, estimated, launched, followed to 100 %.
  const csv = [
    "Phone,Note",
    ...Array.from({ length: ROWS }, (_, i) => `+3361${String(i).padStart(7, "0")},row ${i + 1}`),
  ].join("\n");
  await page.goto(`${base}/app/bulk?type=phone-validator`);
  await page.type("#job-name", "Browser check phones");
  await page.evaluate((content) => {
    const file = new File([content], "phones.csv", { type: "text/csv" });
    const data = new DataTransfer();
    data.items.add(file);
    const zone = document.querySelector(".dropzone");
    for (const type of ["dragenter", "dragover", "drop"])
      zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }));
  }, csv);
  await page.waitForSelector("#column-preview table", { timeout: 15_000 });
  const chosen = await page.$eval("#col-phone_field_index", (s) => s.value);
  assert(chosen === "0", `the preview chose column ${chosen} for the phone`);
  await shot(page, "06-bulk-preview");
  await submit(page, "#bulk-upload button[type=submit]");
  assert(/^\/app\/bulk\/phone-validator\/\d+$/.test(pathOf(page)), `after upload: ${page.url()}`);
  assert((await text(page)).includes("Estimate:"), "the pending job shows its estimate");
  await shot(page, "07-bulk-estimate");
  await submit(page, "#job-live button.primary");
  await page.evaluate(() => (window.__sameDocument = true));
  const samples = [];
  const started = Date.now();
  let midShot = false;
  for (;;) {
    const state = await page.evaluate(() => ({
      value: document.querySelector("#job-live progress")?.value ?? null,
      line: document.querySelector("[data-progress-line]")?.textContent ?? "",
      results: !!document.querySelector("#results-h"),
    }));
    if (state.value !== null && samples.at(-1)?.value !== state.value)
      samples.push({ ms: Date.now() - started, ...state });
    if (!midShot && state.value > 0 && state.value < 100) {
      await shot(page, "08-bulk-running", false);
      midShot = true;
    }
    if (state.results) break;
    assert(Date.now() - started < 120_000, `the job did not finish in 2 minutes: ${JSON.stringify(samples.at(-1))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert(await page.evaluate(() => window.__sameDocument === true), "the page followed the job without reloading");
  const final = await page.$eval("#job-live progress", (p) => p.value);
  assert(final === 100, `the progress bar ended at ${final}`);
  assert(
    samples.some((s) => / rows\/s/.test(s.line)),
    `the progress line shows rows per second: ${JSON.stringify(samples)}`,
  );
  const summary = await text(page);
  assert(
    summary.includes("Summary:") && summary.includes(`${ROWS.toLocaleString("en")} found`),
    `summary: ${summary.slice(0, 600)}`,
  );
  await shot(page, "09-bulk-done");
  step(
    `uploaded ${ROWS} rows by drag and drop; progress ${samples.map((s) => `${s.value}%@${(s.ms / 1000).toFixed(1)}s`).join(" ")}; summary shown without a reload (dash-06..09)`,
  );
  step(
    `progress line seen: "${samples.find((s) => /rows\/s/.test(s.line) && s.value < 100)?.line ?? samples.at(-1)?.line}"`,
  );

  // 7. Download the results through the link, as the browser saves it.
  const downloads = path.join(screens, "downloads");
  rmSync(downloads, { recursive: true, force: true });
  mkdirSync(downloads, { recursive: true });
  const cdp = await page.createCDPSession();
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });
  await page.click("a[href$='download?file=full']");
  let file;
  for (let i = 0; i < 100 && !file; i++) {
    await new Promise((r) => setTimeout(r, 100));
    file = readdirSync(downloads).find((f) => f.endsWith(".csv"));
  }
  assert(file, "the download arrived");
  await new Promise((r) => setTimeout(r, 300));
  const lines = readFileSync(path.join(downloads, file), "utf8").trim().split(/\r?\n/);
  assert(lines.length === ROWS + 1, `the download has ${lines.length} lines`);
  assert(
    lines[0].startsWith("Phone,Note,") && lines[1].includes("+33610000000"),
    `download header/first row: ${lines[0]} | ${lines[1]}`,
  );
  step(`downloaded ${file}: ${lines.length - 1} rows, header "${lines[0]}"`);

  // 8. Revoke the key: it stops working at once.
  await page.goto(`${base}/app/keys`);
  await submit(page, "tbody form[action$='/revoke'] button");
  assert((await text(page)).includes("The key was revoked"), "revoked");
  const after = await fetch(`${base}/v1/me`, { headers: { "X-Service-Key": key, "X-Service-Secret": secret } });
  assert(after.status === 401, `the revoked key answered ${after.status}`);
  await shot(page, "10-key-revoked");
  step(`revoked the key from the keys page: /v1/me now answers ${after.status} (dash-10)`);

  // 8b. A top-up with the development payment method: the balance grows by the pack, a receipt is listed.
  const searchCredits = async () => {
    await page.goto(`${base}/app`);
    return Number((await page.$eval("#bal-search + p.stat", (e) => e.textContent)).replace(/[^\d]/g, ""));
  };
  const creditsBefore = await searchCredits();
  await page.goto(`${base}/app/plans`);
  await shot(page, "17-plans");
  await submit(page, "form[action='/app/plans/packs/pack-1k'] button");
  assert(pathOf(page) === "/app/plans", `after the top-up: ${page.url()}: ${(await text(page)).slice(0, 600)}`);
  const plans = await text(page);
  assert(plans.includes("The credits are on your account") && plans.includes("1,000 credits"), "the receipt is listed");
  await shot(page, "18-top-up-receipt");
  const creditsAfter = await searchCredits();
  assert(creditsAfter === creditsBefore + 1_000, `search credits ${creditsBefore} -> ${creditsAfter}`);
  step(
    `topped up 1,000 credits with the development payment method: ${creditsBefore} -> ${creditsAfter}, receipt listed (dash-17, dash-18)`,
  );

  // 8c. A team: invite by email, the member joins with their own password, searches on the owner's
  // account (attributed to them in the logs), then is removed and loses access at once.
  const memberEmail = `member-${Date.now()}@example.com`;
  await page.goto(`${base}/app/team`);
  await page.type("#invite-email", memberEmail);
  await submit(page, "form[action='/app/team/invite'] button[type=submit]");
  assert((await text(page)).includes("The invitation was mailed"), "invited");
  await shot(page, "19-team-invited");
  const joinLink = await mailLink(memberEmail, "join");
  assert(joinLink?.startsWith(`${base}/app/team/join?token=`), `join link ${joinLink}`);
  const memberContext = await browser.createBrowserContext();
  const member = await memberContext.newPage();
  await member.setViewport({ width: 1280, height: 860 });
  await member.goto(joinLink);
  await member.type("#join-password", "the member's own password");
  await member.screenshot({ path: path.join(screens, "dash-20-join.png"), fullPage: true });
  await Promise.all([member.waitForNavigation(), member.click("button[type=submit]")]);
  assert(new URL(member.url()).pathname === "/app", `after joining: ${member.url()}`);
  await member.goto(`${base}/app/try`);
  await member.type("#p-phone", "+33612345679");
  await Promise.all([member.waitForNavigation(), member.click("form[method=post] button.primary")]);
  assert(
    (await member.$eval("main", (m) => m.textContent)).includes("Billed: 1 phone credit"),
    "the member's search ran",
  );
  let logs = "";
  for (let i = 0; i < 30 && !logs.includes(memberEmail); i++) {
    await page.goto(`${base}/app/logs`);
    logs = await text(page);
    if (!logs.includes(memberEmail)) await new Promise((r) => setTimeout(r, 300));
  }
  assert(logs.includes(memberEmail), "the owner's logs attribute the member's search to the member");
  await shot(page, "21-logs-by-member");
  await page.goto(`${base}/app/team`);
  await submit(page, "tbody form[action$='/remove'] button");
  assert((await text(page)).includes("The member was removed"), "removed");
  await member.goto(`${base}/app`);
  assert(new URL(member.url()).pathname === "/app/sign-in", `the removed member's next page: ${member.url()}`);
  await memberContext.close();
  step(
    `team: invited ${memberEmail}, joined with their own password, searched on the owner's account (logged as theirs), removed: their session ended (dash-19..21)`,
  );

  // 8d. Settings: changing the password signs out the other session, not this one.
  const otherContext = await browser.createBrowserContext();
  const other = await otherContext.newPage();
  await other.goto(`${base}/app/sign-in`);
  await other.type("#email", email);
  await other.type("#password", PASSWORD);
  await Promise.all([other.waitForNavigation(), other.click("button[type=submit]")]);
  assert(new URL(other.url()).pathname === "/app", `the second session: ${other.url()}`);
  await page.goto(`${base}/app/settings`);
  await page.type("#pw-current", PASSWORD);
  await page.type("#pw-new", `${PASSWORD}-changed`);
  await submit(page, "form[action='/app/settings/password'] button");
  assert((await text(page)).includes("Every other session was signed out"), "password changed");
  await shot(page, "22-settings-password");
  await other.goto(`${base}/app`);
  assert(new URL(other.url()).pathname === "/app/sign-in", `the other session after the change: ${other.url()}`);
  await page.goto(`${base}/app`);
  assert(pathOf(page) === "/app", "this session stays signed in");
  await otherContext.close();
  step("settings: the password change signed the other session out and kept this one (dash-22)");

  // 8e. Keyboard only: Tab to the phone field of Try it, type, Enter; the card answers.
  await page.goto(`${base}/app/try`);
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate(() => document.activeElement?.id === "p-phone");
  }
  assert(reached, "Tab reaches the phone field");
  await page.keyboard.type("+33612345670");
  await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")]);
  assert(/Mobile · country FR/.test(await text(page)), "the keyboard-only try answered with a card");
  step("keyboard only: Tab to Try it's field, type, Enter: a result card");

  // 9. Every page: screenshots, first paint and transfer (cache off), labels, focus ring, 360 px, dark mode.
  const measured = [];
  const probe = await newPage();
  await probe.setCacheEnabled(false);
  // A tab in the background is not painted: the measured one is in front.
  await probe.bringToFront();
  const bulkJob = await (async () => {
    await probe.goto(`${base}/app/bulk`);
    return probe.$eval("tbody a[href^='/app/bulk/']", (a) => a.getAttribute("href"));
  })();
  for (const [i, p] of [...DASHBOARD_PAGES, bulkJob].entries()) {
    // Each page is loaded three times (cache off) and its median first paint kept: one load on a
    // machine shared with other work measures the machine as much as the page.
    const loads = [];
    for (let n = 0; n < 3; n++) {
      await probe.goto(`${base}${p}`, { waitUntil: "load" });
      // The paint entry is recorded when the frame is presented, which may come just after "load".
      await probe.waitForFunction(() => performance.getEntriesByName("first-contentful-paint").length > 0, {
        timeout: 5_000,
      });
      loads.push(await probe.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0].startTime));
    }
    const m = await probe.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      const res = performance.getEntriesByType("resource");
      const controls = [...document.querySelectorAll("input:not([type=hidden]),select,textarea")];
      const unlabelled = controls
        .filter((c) => !(c.labels?.length || c.getAttribute("aria-label") || c.getAttribute("aria-labelledby")))
        .map((c) => c.outerHTML.slice(0, 80));
      return {
        bytes: nav.transferSize + res.reduce((a, r) => a + r.transferSize, 0),
        decoded: nav.decodedBodySize + res.reduce((a, r) => a + r.decodedBodySize, 0),
        unlabelled,
      };
    });
    // Keyboard: the first Tab reaches the skip link, and a focused control shows the focus ring.
    await probe.keyboard.press("Tab");
    const focus = await probe.evaluate(() => ({
      skip: document.activeElement?.classList.contains("skip"),
      outline: getComputedStyle(document.activeElement).outlineStyle,
    }));
    assert(
      focus.skip && focus.outline !== "none",
      `${p}: Tab does not reach a visible skip link (${JSON.stringify(focus)})`,
    );
    m.fcp = loads.sort((a, b) => a - b)[1];
    assert(m.unlabelled.length === 0, `${p}: controls without a label: ${m.unlabelled.join(" | ")}`);
    assert(m.fcp !== null && m.fcp < 500, `${p}: first paint ${m.fcp} ms`);
    assert(m.bytes < 100 * 1024, `${p}: ${m.bytes} bytes transferred`);
    measured.push(
      `${p} ${Math.round(m.fcp)} ms (${loads.map(Math.round).join("/")}) ${(m.bytes / 1024).toFixed(1)} KB (${(m.decoded / 1024).toFixed(1)} KB unpacked)`,
    );
    await probe.screenshot({
      path: path.join(
        screens,
        `dash-page-${String(i + 1).padStart(2, "0")}-${p.replace(/\W+/g, "-").replace(/^-|-$/g, "")}.png`,
      ),
      fullPage: true,
    });
  }
  step(
    `every page: labelled controls, skip link and focus ring on the first Tab, first paint (median of 3 loads) and transfer (cache off): ${measured.join("; ")}`,
  );

  const phone = await newPage(360, 740);
  const wide = await newPage();
  const slug = (p) => p.replace(/\W+/g, "-").replace(/^-|-$/g, "");
  for (const scheme of ["light", "dark"]) {
    await phone.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
    await wide.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
    for (const p of [...DASHBOARD_PAGES, bulkJob]) {
      await phone.goto(`${base}${p}`);
      const fits = await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      assert(fits, `${p} scrolls sideways at 360 px`);
      await phone.screenshot({ path: path.join(screens, `dash-all-360-${scheme}-${slug(p)}.png`), fullPage: true });
      await wide.goto(`${base}${p}`);
      await wide.screenshot({ path: path.join(screens, `dash-all-1280-${scheme}-${slug(p)}.png`), fullPage: true });
    }
  }
  await phone.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "light" }]);
  await wide.close();
  await phone.goto(`${base}/app`);
  await phone.screenshot({ path: path.join(screens, "dash-11-overview-360.png"), fullPage: true });
  await phone.goto(`${base}${bulkJob}`);
  await phone.screenshot({ path: path.join(screens, "dash-12-bulk-job-360.png"), fullPage: true });
  await phone.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
  await phone.goto(`${base}/app`);
  const dark = await phone.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert(dark !== "rgb(246, 247, 249)", `dark mode background ${dark}`);
  await phone.screenshot({ path: path.join(screens, "dash-13-overview-360-dark.png"), fullPage: true });
  step(`every page fits 360 px; dark mode follows prefers-color-scheme (dash-11..13)`);

  assert(offsite.length === 0, `requests off this machine: ${offsite.join(", ")}`);
  assert(consoleErrors.length === 0, `console errors: ${consoleErrors.join(" | ")}`);
  step("no request left this machine; no console errors");
  for (const p of [page, probe, phone]) await p.close();
}

const MAIL_PATHS = { confirm: "confirm", reset: "reset/new", join: "team/join", email: "settings/email/confirm" };

/** Finds the newest "[mail]" link for `email` of a kind in a server's output. */
export function mailLinkIn(output, email, kind) {
  const pattern = new RegExp(
    `\\[mail\\] to ${email.replace(/[.+]/g, "\\$&")}: .*\\n\\[mail\\]\\s+(\\S+/app/${MAIL_PATHS[kind]}\\?token=\\S+)`,
    "g",
  );
  return [...output.matchAll(pattern)].at(-1)?.[1] ?? null;
}
