import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SIGN_IN_LIMITS, throttleSignIn } from "../../src/auth/password-sign-in.js";
import type { Env } from "../../src/env.js";
import { Browser as DashboardBrowser } from "../dashboard/support.js";
import { createAccount } from "../support/accounts.js";
import { Browser, emailOf, PASSWORD, SESSION_COOKIE, signInAt } from "./support.js";

const testEnv = env as Env;
let addresses = 0;
/** Client addresses of these tests' own, apart from every other file's. */
const newAddress = () => `192.0.2.${(++addresses % 250) + 1}`;

/** Signing in on the way to an OAuth page (the one sign-in page, sent back to /device). */
const oauthSignIn = (browser: Browser, email: string, password = PASSWORD) => signInAt(browser, email, password);

async function dashboardSignIn(browser: DashboardBrowser, email: string, password = PASSWORD) {
  return browser.post("/app/sign-in", { csrf: await browser.csrfOf("/app/sign-in"), email, password });
}

/**
 * Spends the account's budget for new addresses, from as many addresses as the per-address budgets
 * let it (without PBKDF2 runs); then one more attempt from yet another address is refused.
 */
async function guessFromManyAddresses(email: string, alreadySpent = 0) {
  const { perAccountFromNewAddresses, perAccountFromAddress } = SIGN_IN_LIMITS;
  let guesser = "";
  for (let i = alreadySpent; i < perAccountFromNewAddresses.limit; i++) {
    if (i % perAccountFromAddress.limit === 0) guesser = `guesser-${crypto.randomUUID()}`;
    expect(await throttleSignIn(testEnv, guesser, email)).toBeNull();
  }
  expect(await throttleSignIn(testEnv, `guesser-${crypto.randomUUID()}`, email)).not.toBeNull();
}

describe("password guessing on the way to the OAuth pages", () => {
  it("is bounded per account across addresses, by the dashboard's own throttle", async () => {
    const email = await emailOf((await createAccount()).accountId);
    await guessFromManyAddresses(email);
    // The right password from a new address now waits, on the OAuth pages and the dashboard alike.
    const browser = new Browser(newAddress());
    const refused = await oauthSignIn(browser, email);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(browser.has(SESSION_COOKIE)).toBe(false);
    expect((await dashboardSignIn(new DashboardBrowser(), email)).status).toBe(429);
  });

  it("closes the account to an address after ten guesses there, on the way to the dashboard or an app alike", async () => {
    const email = await emailOf((await createAccount()).accountId);
    const ip = newAddress();
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountFromAddress.limit; i++)
      expect((await dashboardSignIn(new DashboardBrowser(ip), email, "a wrong password")).status).toBe(400);
    expect((await oauthSignIn(new Browser(ip), email)).status).toBe(429);
  });
});

describe("password guessing on either sign-in page", () => {
  it("cannot lock the owner out from an address the owner signed in from before", async () => {
    const email = await emailOf((await createAccount()).accountId);
    const home = newAddress();
    expect((await dashboardSignIn(new DashboardBrowser(home), email)).status).toBe(303);
    // Someone else guesses from everywhere (home was new to the account: it spent one attempt).
    await guessFromManyAddresses(email, 1);
    const elsewhere = `guesser-${crypto.randomUUID()}`;
    for (let i = 0; i < SIGN_IN_LIMITS.perAccountFromAddress.limit; i++)
      await throttleSignIn(testEnv, elsewhere, email);
    expect(await throttleSignIn(testEnv, elsewhere, email)).not.toBeNull();
    // The owner still signs in from home, on both pages.
    expect((await dashboardSignIn(new DashboardBrowser(home), email)).status).toBe(303);
    expect((await oauthSignIn(new Browser(home), email)).status).toBe(303);
  });

  it("answers a blocked account's right password exactly as a wrong one", async () => {
    const { accountId } = await createAccount();
    await testEnv.DB.prepare("UPDATE accounts SET blocked = 1 WHERE id = ?").bind(accountId).run();
    const email = await emailOf(accountId);
    const browser = new DashboardBrowser(newAddress());
    const right = await dashboardSignIn(browser, email);
    const wrong = await dashboardSignIn(browser, email, "not the password at all");
    expect([right.status, wrong.status]).toEqual([400, 400]);
    const text = async (r: Response) => (await r.text()).replace(/name="csrf" value="[^"]+"/, "");
    expect(await text(right)).toBe(await text(wrong));
  });
});
