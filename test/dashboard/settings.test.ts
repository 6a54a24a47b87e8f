import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addKey, call } from "../support/accounts.js";
import { type Browser, confirmedUser, lastMail, newEmail, PASSWORD, pathOf } from "./support.js";

/** A second browser signed in to the same account (its own session). */
async function secondSession(accountId: number): Promise<Browser> {
  const other = await confirmedUser();
  await env.DB.prepare("UPDATE dashboard_sessions SET account_id = ? WHERE account_id = ?")
    .bind(accountId, other.accountId)
    .run();
  return other.browser;
}

describe("settings", () => {
  it("changing the password keeps this session and signs out every other one", async () => {
    const { browser, accountId } = await confirmedUser();
    const other = await secondSession(accountId);
    expect((await other.get("/app/settings")).status).toBe(200);
    const csrf = await browser.csrfOf("/app/settings");
    const res = await browser.post("/app/settings/password", {
      csrf,
      current: PASSWORD,
      password: "a new long password",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app/settings?ok=password-changed");
    expect(await (await browser.get("/app/settings?ok=password-changed")).text()).toContain(
      "Every other session was signed out.",
    );
    const kicked = await other.get("/app/settings");
    expect(kicked.status).toBe(303);
    expect(kicked.headers.get("location")).toMatch(/^\/app\/sign-in/);
  });

  it("refuses a password change with a wrong current password (403) or a short new one (400), and keeps the old one", async () => {
    const { browser, accountId } = await confirmedUser();
    const before = await env.DB.prepare("SELECT password_hash FROM accounts WHERE id = ?").bind(accountId).first();
    const csrf = await browser.csrfOf("/app/settings");
    const wrong = await browser.post("/app/settings/password", {
      csrf,
      current: "not it at all",
      password: "a new long password",
    });
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain("Your current password is not right.");
    const short = await browser.post("/app/settings/password", { csrf, current: PASSWORD, password: "short" });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain("at least 10 characters");
    expect(await env.DB.prepare("SELECT password_hash FROM accounts WHERE id = ?").bind(accountId).first()).toEqual(
      before,
    );
  });

  it("changes the address only once a link mailed to the new address is opened by the same account", async () => {
    const { browser, accountId, email } = await confirmedUser();
    const next = newEmail();
    const csrf = await browser.csrfOf("/app/settings");
    const res = await browser.post("/app/settings/email", { csrf, email: next, current: PASSWORD });
    expect(res.headers.get("location")).toBe("/app/settings?ok=email-sent");
    const link = pathOf(lastMail(next).link);
    const addressOf = async () =>
      (await env.DB.prepare("SELECT email FROM accounts WHERE id = ?").bind(accountId).first<{ email: string }>())!
        .email;
    expect(await addressOf()).toBe(email);
    // Someone else's session cannot spend the link.
    const stranger = await confirmedUser();
    expect((await stranger.browser.get(link)).status).toBe(400);
    const opened = await browser.get(link);
    expect(opened.headers.get("location")).toBe("/app/settings?ok=email-changed");
    expect(await addressOf()).toBe(next);
    expect((await browser.get(link)).status).toBe(400);
  });

  it("refuses an address another account already uses (409) and a malformed one (400)", async () => {
    const { browser } = await confirmedUser();
    const other = await confirmedUser();
    const csrf = await browser.csrfOf("/app/settings");
    const taken = await browser.post("/app/settings/email", { csrf, email: other.email, current: PASSWORD });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain("Another account uses that address.");
    const bad = await browser.post("/app/settings/email", { csrf, email: "not an address", current: PASSWORD });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Enter an email address like jane@example.com.");
  });

  it("exports the account's data as JSON, keys without secrets", async () => {
    const { browser, accountId, email } = await confirmedUser();
    const key = await addKey(accountId);
    await call("/v1/leads", {
      method: "POST",
      headers: { ...key.headers, "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", first_name: "Ada" }),
    });
    const res = await browser.get("/app/settings/export.json");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
    const text = await res.text();
    const data = JSON.parse(text);
    expect(data.account.email).toBe(email);
    expect(data.api_keys).toEqual([expect.objectContaining({ key: key.key })]);
    expect(data.leads).toEqual([expect.objectContaining({ email: "ada@example.com" })]);
    expect(text).not.toMatch(/secret|password/i);
  });

  it("deletes the account with its data: keys stop working, sessions end, the row keeps no address", async () => {
    const { browser, accountId, email } = await confirmedUser();
    const key = await addKey(accountId);
    await call("/v1/leads", {
      method: "POST",
      headers: { ...key.headers, "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com" }),
    });
    const csrf = await browser.csrfOf("/app/settings");
    const unconfirmed = await browser.post("/app/settings/delete", { csrf, current: PASSWORD, confirm: "yes" });
    expect(unconfirmed.status).toBe(400);
    expect(await unconfirmed.text()).toContain("Type &quot;delete&quot; to confirm.");
    const res = await browser.post("/app/settings/delete", { csrf, current: PASSWORD, confirm: "delete" });
    expect(res.status).toBe(303);
    expect((await browser.get("/app")).status).toBe(303);
    expect((await call("/v1/me", { headers: key.headers })).status).toBe(401);
    const row = await env.DB.prepare("SELECT email, password_hash, blocked FROM accounts WHERE id = ?")
      .bind(accountId)
      .first<{ email: string; password_hash: string | null; blocked: number }>();
    expect(row).toEqual({ email: `deleted-${accountId}@deleted.invalid`, password_hash: null, blocked: 1 });
    expect(row!.email).not.toBe(email);
    const leads = await env.DB.prepare("SELECT count(*) AS n FROM leads WHERE account_id = ?").bind(accountId).first();
    expect(leads).toEqual({ n: 0 });
  });

  it("refuses every settings change without the page's CSRF token", async () => {
    const { browser } = await confirmedUser();
    for (const path of ["/app/settings/password", "/app/settings/email", "/app/settings/delete"]) {
      const res = await browser.post(path, { csrf: "forged", current: PASSWORD, password: "x".repeat(12) });
      expect(res.status, path).toBe(403);
    }
  });
});
