import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { oauthDeviceCodes } from "../../src/db/schema-oauth.js";
import { DEVICE_CODE_LIMITS } from "../../src/oauth/device-throttle.js";
import { call, createAccount, json } from "../support/accounts.js";
import { Browser, bearer, field, registerClient, SESSION_COOKIE, signedIn, tokenRequest } from "./support.js";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

async function startDevice(clientId: string, scope?: string) {
  const res = await call("/oauth/device_authorization", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: clientId, ...(scope ? { scope } : {}) }),
  });
  return res;
}

const poll = (clientId: string, deviceCode: string) =>
  tokenRequest({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });

/** Lets the next poll through without waiting out the interval in real time. */
async function waitOutInterval(deviceCode: string) {
  const { sha256Hex } = await import("../../src/platform/crypto.js");
  await drizzle(env.DB)
    .update(oauthDeviceCodes)
    .set({ lastPolledAt: 0 })
    .where(eq(oauthDeviceCodes.deviceCodeHash, await sha256Hex(deviceCode)));
}

async function answer(browser: Browser, userCode: string, decision: "approve" | "deny") {
  const entry = await browser.fetch(`/device?user_code=${userCode}`);
  expect(entry.status).toBe(200);
  const entryHtml = await entry.text();
  expect(entryHtml).toContain(`value="${userCode}"`);
  const confirm = await browser.post("/device", { csrf: field(entryHtml, "csrf"), user_code: userCode.toLowerCase() });
  expect(confirm.status).toBe(200);
  const html = await confirm.text();
  expect(html).toContain("Test CRM");
  return browser.post("/device/decision", { csrf: field(html, "csrf"), user_code: field(html, "user_code"), decision });
}

/** A client address no other test uses (Browser picks 203.0.113.x at random). */
let nextAddress = 1;
const ownAddress = () => `198.51.100.${nextAddress++}`;

/** A well-formed user code that is (almost surely) nobody's. */
const wrongCode = () =>
  [...crypto.getRandomValues(new Uint8Array(8))].map((b) => "BCDFGHJKLMNPQRSTVWXZ"[b % 20]).join("");

/** Types a code on the device page; answers the page. */
async function typeCode(browser: Browser, code: string) {
  const page = await (await browser.fetch("/device")).text();
  return browser.post("/device", { csrf: field(page, "csrf"), user_code: code });
}

describe("device code entry is throttled (RFC 8628 §5.1)", () => {
  it(`allows ${DEVICE_CODE_LIMITS.perAddress.limit} codes a minute from one client address, then shows a clear 429 page with Retry-After`, async () => {
    const ip = ownAddress();
    // Two people behind one address, half the budget each (so no account's own budget runs out).
    const people = [await signedIn(undefined, ip), await signedIn(undefined, ip)];
    for (let i = 0; i < DEVICE_CODE_LIMITS.perAddress.limit; i++) {
      expect((await typeCode(people[i % 2]!.browser, wrongCode())).status).toBe(400);
    }
    const { browser } = await signedIn(undefined, ip);
    const refused = await typeCode(browser, wrongCode());
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("content-type")).toMatch(/text\/html/);
    const page = await refused.text();
    expect(page).toContain("Too many codes tried");
    expect(page).toMatch(/Wait \d+ seconds/);
    // Another address is not affected.
    const other = await signedIn(undefined, ownAddress());
    expect((await typeCode(other.browser, wrongCode())).status).toBe(400);
  });

  it(`allows ${DEVICE_CODE_LIMITS.perAccount.limit} codes a minute per signed-in account, whatever the address`, async () => {
    const account = await createAccount();
    for (let i = 0; i < DEVICE_CODE_LIMITS.perAccount.limit; i++) {
      const { browser } = await signedIn(account, ownAddress());
      expect((await typeCode(browser, wrongCode())).status).toBe(400);
    }
    const { browser } = await signedIn(account, ownAddress());
    expect((await typeCode(browser, wrongCode())).status).toBe(429);
  });

  it(`lets one device code be submitted ${DEVICE_CODE_LIMITS.perCode.limit} times, on the entry page and the decision form together`, async () => {
    const client = await registerClient();
    const { user_code } = await json(await startDevice(client.client_id));
    for (let i = 0; i < DEVICE_CODE_LIMITS.perCode.limit - 1; i++) {
      const { browser } = await signedIn(undefined, ownAddress());
      expect((await typeCode(browser, user_code)).status).toBe(200);
    }
    const { browser } = await signedIn(undefined, ownAddress());
    const confirm = await typeCode(browser, user_code);
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    // The decision form names the code again: that is a submission too.
    const decided = await browser.post("/device/decision", {
      csrf: field(html, "csrf"),
      user_code: field(html, "user_code"),
      decision: "approve",
    });
    expect(decided.status).toBe(429);
    expect(await decided.text()).toContain("Too many codes tried");
  });
});

describe("device authorization (RFC 8628)", () => {
  it("hands out a device code, a typeable user code and the page to type it on", async () => {
    const client = await registerClient();
    const res = await startDevice(client.client_id);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(body).toMatchObject({ verification_uri: "https://api.test/device", expires_in: 600, interval: 5 });
    expect(body.verification_uri_complete).toBe(`https://api.test/device?user_code=${body.user_code}`);
  });

  it("refuses an unknown client and an unknown scope", async () => {
    const unknown = await startDevice("no-such-client");
    expect(unknown.status).toBe(401);
    expect((await json(unknown)).error).toBe("invalid_client");
    const client = await registerClient();
    expect((await json(await startDevice(client.client_id, "root"))).error).toBe("invalid_scope");
  });

  it("answers authorization_pending, then slow_down when polled faster than the interval", async () => {
    const client = await registerClient();
    const { device_code } = await json(await startDevice(client.client_id));
    const first = await poll(client.client_id, device_code);
    expect(first.status).toBe(400);
    expect((await json(first)).error).toBe("authorization_pending");
    const second = await poll(client.client_id, device_code);
    expect((await json(second)).error).toBe("slow_down");
    expect(second.headers.get("retry-after")).toBe("10");
    const third = await poll(client.client_id, device_code);
    expect(third.headers.get("retry-after")).toBe("15");
  });

  it("issues working tokens once the signed-in person approves the code, exactly once", async () => {
    const client = await registerClient();
    const { device_code, user_code } = await json(await startDevice(client.client_id));
    const { browser, account } = await signedIn();
    const done = await answer(browser, user_code, "approve");
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Device connected");

    const res = await poll(client.client_id, device_code);
    expect(res.status).toBe(200);
    const tokens = await json(res);
    expect(tokens).toMatchObject({ token_type: "bearer", scope: "api" });
    const me = await call("/v1/me", { headers: bearer(tokens.access_token) });
    expect((await json(me)).data.user_id).toBe(account.accountId);
    const refreshed = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    expect(refreshed.status).toBe(200);

    const again = await poll(client.client_id, device_code);
    expect((await json(again)).error).toBe("invalid_grant");
  });

  it("answers access_denied when the person denies", async () => {
    const client = await registerClient();
    const { device_code, user_code } = await json(await startDevice(client.client_id));
    await poll(client.client_id, device_code);
    const { browser } = await signedIn();
    expect((await answer(browser, user_code, "deny")).status).toBe(200);
    const res = await poll(client.client_id, device_code);
    expect((await json(res)).error).toBe("access_denied");
  });

  it("answers expired_token after the code's lifetime, and the page no longer takes it", async () => {
    const client = await registerClient();
    const { device_code, user_code } = await json(await startDevice(client.client_id));
    await drizzle(env.DB)
      .update(oauthDeviceCodes)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(oauthDeviceCodes.clientId, client.client_id));
    await waitOutInterval(device_code);
    expect((await json(await poll(client.client_id, device_code))).error).toBe("expired_token");
    const { browser } = await signedIn();
    const entry = await (await browser.fetch("/device")).text();
    const res = await browser.post("/device", { csrf: field(entry, "csrf"), user_code });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("not valid or has expired");
  });

  it("refuses a device code presented by another client", async () => {
    const client = await registerClient();
    const other = await registerClient();
    const { device_code } = await json(await startDevice(client.client_id));
    expect((await json(await poll(other.client_id, device_code))).error).toBe("invalid_grant");
  });

  it("sends a signed-out person to sign in first", async () => {
    const res = await new Browser().fetch("/device?user_code=BCDF-GHJK");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/app/sign-in?next=${encodeURIComponent("/device?user_code=BCDF-GHJK")}`);
  });

  it("signs out from the device page, after which the page asks to sign in again", async () => {
    const { browser } = await signedIn();
    const entry = await (await browser.fetch("/device")).text();
    const out = await browser.post(
      "/app/sign-out",
      { csrf: field(entry, "csrf") },
      { "Sec-Fetch-Site": "same-origin" },
    );
    expect(out.status).toBe(303);
    expect(browser.has(SESSION_COOKIE)).toBe(false);
    expect((await browser.fetch("/device")).status).toBe(303);
  });

  it("refuses a device decision without the session's CSRF token", async () => {
    const client = await registerClient();
    const { device_code, user_code } = await json(await startDevice(client.client_id));
    const { browser } = await signedIn();
    const res = await browser.post("/device/decision", { csrf: "forged", user_code, decision: "approve" });
    expect(res.status).toBe(403);
    await waitOutInterval(device_code);
    expect((await json(await poll(client.client_id, device_code))).error).toBe("authorization_pending");
  });
});
