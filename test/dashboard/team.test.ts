import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { addKey, call, json } from "../support/accounts.js";
import { settle } from "../support/settle.js";
import { Browser, confirmedUser, lastMail, newEmail, PASSWORD, pathOf } from "./support.js";

const csrfOf = (html: string) => /<meta name="csrf-token" content="([^"]+)"/.exec(html)![1]!;

/** The owner invites `email` from the Team page; answers the path of the mailed link. */
async function invite(owner: Browser, email: string, role: "admin" | "member" = "member") {
  const csrf = csrfOf(await (await owner.get("/app/team")).text());
  const res = await owner.post("/app/team/invite", { csrf, email, role });
  expect(res.status, await res.clone().text()).toBe(303);
  return pathOf(lastMail(email).link);
}

/** The invited person opens the link and joins with `password`; answers their browser, signed in. */
async function join(link: string, password = "the member's own password") {
  const browser = new Browser();
  const csrf = await browser.csrfOf(link);
  const token = new URL(`https://x${link}`).searchParams.get("token")!;
  const res = await browser.post("/app/team/join", { csrf, token, password });
  return { browser, res };
}

const idOf = async (email: string) =>
  (await env.DB.prepare("SELECT id FROM accounts WHERE email = ?").bind(email).first<{ id: number }>())!.id;

describe("teams", () => {
  it("a member invited by email joins with their own password, and their search is counted on the owner's account and attributed to them", async () => {
    const owner = await confirmedUser();
    const ownerKey = await addKey(owner.accountId);
    const email = newEmail();
    const link = await invite(owner.browser, email);
    expect(link).toMatch(/^\/app\/team\/join\?token=/);
    const { browser: member, res } = await join(link);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app?ok=joined");

    const csrf = csrfOf(await (await member.get("/app/try")).text());
    const tried = await member.post("/app/try", { csrf, capability: "phone-validator", phone: "+33612345678" });
    expect(tried.status).toBe(200);
    const limits = await json(await call("/v1/rate-limits", { headers: ownerKey.headers }));
    expect(limits.data.searches.daily.used).toBe(1);
    expect(limits.credits.phone.used).toBe(1);

    const memberId = await idOf(email);
    let rows: { endpoint: string; user_id: number }[] = [];
    await settle(async () => {
      rows = (await json(await call("/v1/logs", { headers: ownerKey.headers }))).data;
      return rows.some((r) => r.endpoint === "/v1/phone-validator");
    });
    expect(rows.find((r) => r.endpoint === "/v1/phone-validator")?.user_id).toBe(memberId);
    const logsPage = await (await owner.browser.get("/app/logs")).text();
    expect(logsPage).toContain(`<td>${email}</td>`);
  });

  it("the invitation link works once", async () => {
    const owner = await confirmedUser();
    const email = newEmail();
    const link = await invite(owner.browser, email);
    expect((await join(link)).res.status).toBe(303);
    const again = await new Browser().get(link);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("The invitation expired, was withdrawn or was already used.");
  });

  it("someone who already has an account joins with its password, and a wrong one is refused", async () => {
    const owner = await confirmedUser();
    const existing = await confirmedUser("free");
    const link = await invite(owner.browser, existing.email);
    expect((await join(link, "not the right password")).res.status).toBe(403);
    const { res } = await join(link, PASSWORD);
    expect(res.status).toBe(303);
    const row = await env.DB.prepare("SELECT role FROM workspace_members WHERE account_id = ?")
      .bind(existing.accountId)
      .first();
    expect(row).toEqual({ role: "member" });
  });

  it("a member may not create keys or invite anyone; an admin may do both", async () => {
    const owner = await confirmedUser();
    const memberEmail = newEmail();
    await join(await invite(owner.browser, memberEmail, "member"));
    const memberKey = await addKey(await idOf(memberEmail));
    const keys = await call("/v1/keys", {
      method: "POST",
      headers: { ...memberKey.headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "mine" }),
    });
    expect(keys.status).toBe(403);
    expect((await json(keys)).errors.message).toContain("Only the account's owner or an admin can manage API keys");
    const invited = await call("/v1/team/invitations", {
      method: "POST",
      headers: { ...memberKey.headers, "content-type": "application/json" },
      body: JSON.stringify({ email: newEmail() }),
    });
    expect(invited.status).toBe(403);

    const adminEmail = newEmail();
    await join(await invite(owner.browser, adminEmail, "admin"));
    const adminKey = await addKey(await idOf(adminEmail));
    const created = await call("/v1/keys", {
      method: "POST",
      headers: { ...adminKey.headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "admin's" }),
    });
    expect(created.status).toBe(200);
    const byAdmin = await call("/v1/team/invitations", {
      method: "POST",
      headers: { ...adminKey.headers, "content-type": "application/json" },
      body: JSON.stringify({ email: newEmail(), role: "member" }),
    });
    expect(byAdmin.status).toBe(201);
  });

  it("the plan's available_teams caps the people on the account, the owner and open invitations included", async () => {
    const free = await confirmedUser("free");
    const freeKey = await addKey(free.accountId);
    const refused = await call("/v1/team/invitations", {
      method: "POST",
      headers: { ...freeKey.headers, "content-type": "application/json" },
      body: JSON.stringify({ email: newEmail() }),
    });
    expect(refused.status).toBe(422);
    expect((await json(refused)).errors.type).toBe("team_limit_reached");
    const basic = await confirmedUser("basic");
    await invite(basic.browser, newEmail());
    const page = await (await basic.browser.get("/app/team")).text();
    expect(page).toContain("Every seat is taken.");
    const basicKey = await addKey(basic.accountId);
    const full = await call("/v1/team/invitations", {
      method: "POST",
      headers: { ...basicKey.headers, "content-type": "application/json" },
      body: JSON.stringify({ email: newEmail() }),
    });
    expect(full.status).toBe(422);
  });

  it("removing a member ends their access at once: their session ends and their key no longer reaches the owner's data", async () => {
    const owner = await confirmedUser();
    const ownerKey = await addKey(owner.accountId);
    await call("/v1/leads", {
      method: "POST",
      headers: { ...ownerKey.headers, "content-type": "application/json" },
      body: JSON.stringify({ email: "owners-lead@example.com" }),
    });
    const email = newEmail();
    const { browser: member } = await join(await invite(owner.browser, email));
    const memberId = await idOf(email);
    const memberKey = await addKey(memberId);
    expect(JSON.stringify(await json(await call("/v1/leads", { headers: memberKey.headers })))).toContain(
      "owners-lead@example.com",
    );
    const csrf = csrfOf(await (await owner.browser.get("/app/team")).text());
    const removed = await owner.browser.post(`/app/team/members/${memberId}/remove`, { csrf });
    expect(removed.headers.get("location")).toBe("/app/team?ok=removed");
    expect((await member.get("/app")).status).toBe(303);
    expect(JSON.stringify(await json(await call("/v1/leads", { headers: memberKey.headers })))).not.toContain(
      "owners-lead@example.com",
    );
  });

  it("an owner can neither remove another account's member nor withdraw its invitations (404)", async () => {
    const owner = await confirmedUser();
    const email = newEmail();
    await join(await invite(owner.browser, email));
    const stranger = await confirmedUser();
    const strangerKey = await addKey(stranger.accountId);
    const memberId = await idOf(email);
    const remove = await call(`/v1/team/members/${memberId}`, { method: "DELETE", headers: strangerKey.headers });
    expect(remove.status).toBe(404);
    const other = newEmail();
    await invite(owner.browser, other);
    const invitationId = (await env.DB.prepare("SELECT id FROM team_invitations WHERE email = ?")
      .bind(other)
      .first<{ id: number }>())!.id;
    const withdraw = await call(`/v1/team/invitations/${invitationId}`, {
      method: "DELETE",
      headers: strangerKey.headers,
    });
    expect(withdraw.status).toBe(404);
    const csrf = csrfOf(await (await stranger.browser.get("/app/team")).text());
    expect((await stranger.browser.post(`/app/team/members/${memberId}/remove`, { csrf })).status).toBe(404);
  });

  it("refuses an invitation to a malformed address (400) and to someone already on the team (409), in words", async () => {
    const owner = await confirmedUser();
    const csrf = csrfOf(await (await owner.browser.get("/app/team")).text());
    const bad = await owner.browser.post("/app/team/invite", { csrf, email: "nope", role: "member" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Enter an email address like jane@example.com.");
    const self = await owner.browser.post("/app/team/invite", { csrf, email: owner.email, role: "member" });
    expect(self.status).toBe(409);
    expect(await self.text()).toContain("is already on this account&#39;s team.");
  });
});
