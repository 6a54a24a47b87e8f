import { describe, expect, it } from "vitest";
import { confirmedUser } from "./support.js";

const csrfOf = (html: string) => /<meta name="csrf-token" content="([^"]+)"/.exec(html)![1]!;

describe("lead attributes and flags pages", () => {
  it("creates, renames and deletes a lead attribute through /v1, with an empty state that says what to do", async () => {
    const { browser } = await confirmedUser();
    const empty = await (await browser.get("/app/attributes")).text();
    expect(empty).toContain("No attribute yet. Create the first one below.");
    const csrf = csrfOf(empty);
    const created = await browser.post("/app/attributes", { csrf, name: "Deal size", type: "number" });
    expect(created.headers.get("location")).toBe("/app/attributes?ok=created");
    const page = await (await browser.get("/app/attributes")).text();
    expect(page).toContain('value="Deal size"');
    expect(page).toContain("<td>Number</td>");
    const id = /action="\/app\/attributes\/(\d+)\/rename"/.exec(page)![1];
    expect((await browser.post(`/app/attributes/${id}/rename`, { csrf, name: "Deal value" })).status).toBe(303);
    expect(await (await browser.get("/app/attributes")).text()).toContain('value="Deal value"');
    expect((await browser.post(`/app/attributes/${id}/delete`, { csrf })).status).toBe(303);
    expect(await (await browser.get("/app/attributes")).text()).toContain("No attribute yet.");
  });

  it("refuses a nameless attribute in words (400), and another account's attribute is not found (404)", async () => {
    const { browser } = await confirmedUser();
    const csrf = csrfOf(await (await browser.get("/app/attributes")).text());
    const bad = await browser.post("/app/attributes", { csrf, name: " ", type: "string" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Give the attribute a name.");
    await browser.post("/app/attributes", { csrf, name: "Mine", type: "string" });
    const id = /action="\/app\/attributes\/(\d+)\/rename"/.exec(
      await (await browser.get("/app/attributes")).text(),
    )![1];
    const stranger = await confirmedUser();
    const theirs = csrfOf(await (await stranger.browser.get("/app/attributes")).text());
    expect((await stranger.browser.post(`/app/attributes/${id}/delete`, { csrf: theirs })).status).toBe(404);
  });

  it("sends a report of a wrong result and lists it; a reason that does not fit is refused in words", async () => {
    const { browser } = await confirmedUser();
    const csrf = csrfOf(await (await browser.get("/app/flags")).text());
    const wrong = await browser.post("/app/flags", {
      csrf,
      flag_type: "phone",
      value: "+33612345678",
      reason: "hard_bounce",
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("That reason does not fit what you are reporting");
    const sent = await browser.post("/app/flags", {
      csrf,
      flag_type: "email",
      value: "ada@example.com",
      reason: "hard_bounce",
      comment: "<script>alert(1)</script>",
    });
    expect(sent.headers.get("location")).toBe("/app/flags?ok=sent");
    const page = await (await browser.get("/app/flags?ok=sent")).text();
    expect(page).toContain("<td>ada@example.com</td>");
    expect(page).toContain("<td>hard bounce</td>");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page).not.toContain("<script>alert(1)");
  });
});
