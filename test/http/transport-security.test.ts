import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const get = (url: string, init: RequestInit = {}) =>
  exports.default.fetch(new Request(url, { redirect: "manual", ...init }));

describe("Strict-Transport-Security", () => {
  it("is on every answer over HTTPS: pages, the API, its errors, redirects", async () => {
    const answers = await Promise.all([
      get("https://api.test/app/sign-in"),
      get("https://api.test/sign-in"),
      get("https://api.test/v1/me"),
      get("https://api.test/no/such/route"),
      get("https://api.test/app"),
      get("https://api.test/.well-known/oauth-authorization-server"),
    ]);
    for (const res of answers) expect(res.headers.get("strict-transport-security"), res.url).toBe("max-age=31536000");
  });

  it("is not sent over plain HTTP (a local run), where browsers ignore it anyway", async () => {
    expect((await get("http://localhost/no/such/route")).headers.get("strict-transport-security")).toBeNull();
  });
});
