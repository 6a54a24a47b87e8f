import { describe, expect, it } from "vitest";
import { confirmedUser } from "./support.js";

describe("smoke", () => {
  it("renders every page", async () => {
    const { browser } = await confirmedUser();
    for (const path of ["/app", "/app/keys", "/app/try", "/app/bulk", "/app/logs", "/app/leads", "/app/lists", "/app/webhooks"]) {
      const res = await browser.get(path);
      const text = await res.text();
      if (res.status !== 200) console.log(path, res.status, text.slice(0, 2000));
      expect(res.status, path).toBe(200);
    }
  });
});
