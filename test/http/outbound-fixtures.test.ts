import { describe, expect, it } from "vitest";

describe("test network", () => {
  it("answers DNS over HTTPS from fixture zones", async () => {
    const res = await fetch("https://dns.test/dns-query?name=servfail.test&type=MX", {
      headers: { accept: "application/dns-json" },
    });
    expect(((await res.json()) as { Status: number }).Status).toBe(2);
  });

  it("fails a fetch to any host without a fixture instead of reaching the internet", async () => {
    const res = await fetch("https://example.org/");
    expect(res.status).toBe(502);
    expect(res.headers.get("x-fixture-unreachable")).toBe("1");
  });
});
