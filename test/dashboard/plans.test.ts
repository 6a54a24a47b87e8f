import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { payingAgent } from "../agent/support.js";
import { addKey, call, json } from "../support/accounts.js";
import { Browser, confirmedUser, lastMail, newEmail, pathOf } from "./support.js";

const csrfOf = (html: string) => /<meta name="csrf-token" content="([^"]+)"/.exec(html)![1]!;

const available = async (headers: Record<string, string>) =>
  (await json(await call("/v1/me", { headers }))).data.credits.search.available as number;

describe("plans and top-ups", () => {
  it("a top-up paid with the development method grows the balance by the pack and lists a receipt", async () => {
    const { browser, accountId } = await confirmedUser("free");
    const key = await addKey(accountId);
    const before = await available(key.headers);
    const page = await (await browser.get("/app/plans")).text();
    expect(page).toContain("No purchase yet.");
    expect(page).toContain("Pay with the development wallet");
    const res = await browser.post("/app/plans/packs/pack-1k", { csrf: csrfOf(page) });
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get("location")).toBe("/app/plans?ok=pack");
    expect(await available(key.headers)).toBe(before + 1_000);
    const after = await (await browser.get("/app/plans?ok=pack")).text();
    expect(after).toContain("1,000 credits</td>");
    expect(after).toContain("$19 USDC");
    const receipts = await json(await call("/v1/purchases", { headers: key.headers }));
    expect(receipts.data).toEqual([
      expect.objectContaining({ item: "pack-1k", credits: 1000, amount: "19", currency: "USDC", method: "evm" }),
    ]);
  });

  it("a pack bought through /v1 asks for payment with one challenge per currency, and one credential pays once", async () => {
    const { accountId } = await confirmedUser();
    const key = await addKey(accountId);
    const unpaid = await call("/v1/credit-packs/pack-10k", { method: "POST", headers: key.headers });
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get("www-authenticate")).toMatch(/^Payment .*method="evm"/);
    expect(unpaid.headers.get("www-authenticate")!.match(/Payment /g)).toHaveLength(2);
    const credential = await payingAgent().client.createCredential(unpaid);
    const before = await available(key.headers);
    const paid = await call("/v1/credit-packs/pack-10k", {
      method: "POST",
      headers: { ...key.headers, authorization: credential },
    });
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect(paid.headers.get("payment-receipt")).toBeTruthy();
    expect(await available(key.headers)).toBe(before + 10_000);
    const again = await call("/v1/credit-packs/pack-10k", {
      method: "POST",
      headers: { ...key.headers, authorization: credential },
    });
    expect(again.status).toBe(402);
    expect(await available(key.headers)).toBe(before + 10_000);
  });

  it("refuses an unknown pack (404), and a team member's purchase (403: billing is the owner's)", async () => {
    const owner = await confirmedUser();
    const ownerKey = await addKey(owner.accountId);
    expect((await call("/v1/credit-packs/pack-7", { method: "POST", headers: ownerKey.headers })).status).toBe(404);
    const email = newEmail();
    const team = await owner.browser.get("/app/team");
    await owner.browser.post("/app/team/invite", { csrf: csrfOf(await team.text()), email, role: "admin" });
    const member = new Browser();
    const link = pathOf(lastMail(email).link);
    const token = new URL(`https://x${link}`).searchParams.get("token")!;
    await member.post("/app/team/join", { csrf: await member.csrfOf(link), token, password: "the admin's password" });
    const memberId = (await env.DB.prepare("SELECT id FROM accounts WHERE email = ?")
      .bind(email)
      .first<{ id: number }>())!.id;
    const memberKey = await addKey(memberId);
    const refused = await call("/v1/credit-packs/pack-1k", { method: "POST", headers: memberKey.headers });
    expect(refused.status).toBe(403);
    expect((await json(refused)).errors.message).toContain(
      "Only the account's owner can change the plan or buy credits",
    );
    expect(await (await member.get("/app/plans")).text()).toContain("Only the account&#39;s owner changes the plan");
  });

  it("shows the plans side by side, changes to a paid plan for a month with a receipt, and back to Free at once", async () => {
    const { browser, accountId } = await confirmedUser("free");
    const page = await (await browser.get("/app/plans")).text();
    for (const label of ["Free", "Basic", "Growth", "Pro"]) expect(page).toContain(`>${label}</h3>`);
    expect(page).toMatch(/class="card current" aria-labelledby="plan-free"/);
    const csrf = csrfOf(page);
    const up = await browser.post("/app/plans/change", { csrf, plan: "basic" });
    expect(up.headers.get("location")).toBe("/app/plans?ok=plan");
    const row = await env.DB.prepare("SELECT plan, subscription_expires_at FROM accounts WHERE id = ?")
      .bind(accountId)
      .first<{ plan: string; subscription_expires_at: number }>();
    expect(row!.plan).toBe("basic");
    expect(row!.subscription_expires_at).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(await (await browser.get("/app/plans")).text()).toContain("Basic plan, 30 days");
    const down = await browser.post("/app/plans/change", { csrf, plan: "free" });
    expect(down.headers.get("location")).toBe("/app/plans?ok=free");
    const free = await env.DB.prepare("SELECT plan FROM accounts WHERE id = ?").bind(accountId).first();
    expect(free).toEqual({ plan: "free" });
    expect((await browser.post("/app/plans/change", { csrf, plan: "platinum" })).status).toBe(400);
  });

  it("the operator grants the same packs by their id", async () => {
    const { accountId } = await confirmedUser("free");
    const key = await addKey(accountId);
    const before = await available(key.headers);
    const res = await call(`/operator/accounts/${accountId}/credit-packs`, {
      method: "POST",
      headers: { "X-Operator-Secret": "test-operator-secret", "content-type": "application/json" },
      body: JSON.stringify({ pack: "pack-10k" }),
    });
    expect(res.status).toBe(200);
    expect(await available(key.headers)).toBe(before + 10_000);
  });
});
