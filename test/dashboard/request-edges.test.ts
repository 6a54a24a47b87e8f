import { describe, expect, it } from "vitest";
import { confirmedUser, signUp } from "./support.js";

const OBJECT_KEYS = ["constructor", "__proto__", "toString", "hasOwnProperty"];

describe("a dashboard path or notice named like a property of every object", () => {
  it("is an unknown webhook or bulk action (404), never a 500", async () => {
    const { browser } = await confirmedUser();
    const csrf = await browser.csrfOf("/app/webhooks");
    for (const key of OBJECT_KEYS) {
      expect((await browser.post(`/app/webhooks/1/${key}`, { csrf })).status, key).toBe(404);
      expect((await browser.post(`/app/bulk/finder/1/${key}`, { csrf })).status, key).toBe(404);
    }
  });

  it("is an unknown notice: the page shows none", async () => {
    const { browser } = await confirmedUser();
    for (const key of OBJECT_KEYS)
      for (const page of ["/app", "/app/keys", "/app/webhooks", "/app/leads"]) {
        const res = await browser.get(`${page}?ok=${key}`);
        expect(res.status, `${page}?ok=${key}`).toBe(200);
        expect(await res.text()).not.toContain("[native code]");
      }
  });
});

describe("an account whose address is not confirmed yet", () => {
  it("opens the first bulk page and the leads export without a 500", async () => {
    const { browser } = await signUp();
    for (const path of ["/app/bulk", "/app/leads/export.csv"]) {
      const res = await browser.get(path);
      expect(res.status, path).toBeLessThan(500);
      if (res.status >= 400) expect(await res.text(), path).toContain("Confirm your email address");
    }
  });
});

describe("a bulk upload that /v1 refuses", () => {
  it("shows its error on the bulk page, not at the upload's address (whose query holds the CSRF token)", async () => {
    const { browser } = await confirmedUser();
    const page = await (await browser.get("/app/bulk")).text();
    const action = /id="bulk-upload"[^>]*action="([^"]+)"|action="([^"]+)"[^>]*id="bulk-upload"/.exec(page);
    const uploadPath = (action?.[1] ?? action?.[2])!.replaceAll("&amp;", "&");
    expect(uploadPath).toContain("csrf=");
    const form = new FormData();
    form.set("name", "Empty file");
    form.set("file", new File([""], "empty.csv", { type: "text/csv" }));
    const res = await browser.fetch(uploadPath, {
      method: "POST",
      headers: { origin: "https://api.test", "sec-fetch-site": "same-origin" },
      body: form,
    });
    // Before: the bulk page with the error, rendered at /app/bulk/upload/finder?csrf=<token>.
    expect(res.status).toBe(303);
    const to = res.headers.get("location")!;
    expect(to).not.toContain("csrf");
    const shown = await browser.get(to);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain("file is empty");
    // Shown once.
    expect(await (await browser.get(to)).text()).not.toContain("file is empty");
  });
});
