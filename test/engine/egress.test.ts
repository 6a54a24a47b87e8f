import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { crawlDeepPass, crawlFirstPass, FIRST_PASS } from "../../src/engine/web/crawl/crawler.js";
import { assertPublicHost, EgressError, guardedFetch } from "../../src/engine/web/egress.js";
import { classifyAddress, isAllowedAddress } from "../../src/engine/web/ip-ranges.js";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";

const prod = { ...env, ENVIRONMENT: "production" };

async function refusal(p: Promise<unknown>): Promise<EgressError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof EgressError) return err;
    throw err;
  }
  throw new Error("expected the egress guard to refuse");
}

describe("address classification", () => {
  it("refuses private, loopback, link-local, CGNAT, benchmarking and reserved IPv4", () => {
    for (const ip of [
      "0.0.0.0",
      "10.1.2.3",
      "100.64.0.1",
      "100.127.255.255",
      "127.0.0.1",
      "169.254.169.254",
      "172.16.0.1",
      "172.31.255.255",
      "192.0.0.8",
      "192.168.1.1",
      "198.18.0.1",
      "198.19.255.255",
      "224.0.0.1",
      "240.0.0.1",
      "255.255.255.255",
    ]) {
      expect(classifyAddress(ip).verdict, ip).toBe("blocked");
    }
    for (const ip of ["8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.32.0.1", "198.20.0.1"])
      expect(classifyAddress(ip).verdict, ip).toBe("public");
  });

  it("refuses the IPv6 equivalents: loopback, unique local, link-local, mapped, NAT64, 6to4, Teredo, multicast", () => {
    for (const ip of [
      "::1",
      "::",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:8.8.8.8",
      "64:ff9b::a00:1",
      "2002:a00:1::1",
      "2001::1",
      "ff02::1",
      "::127.0.0.1",
      "[::1]",
    ]) {
      expect(classifyAddress(ip).verdict, ip).toBe("blocked");
    }
    for (const ip of ["2606:4700:4700::1111", "2a00:1450:4001::200e"])
      expect(classifyAddress(ip).verdict, ip).toBe("public");
  });

  it("allows the TEST-NET documentation ranges only outside production", () => {
    for (const ip of ["192.0.2.1", "198.51.100.7", "203.0.113.9", "2001:db8::1"]) {
      expect(isAllowedAddress(ip, false), ip).toBe(true);
      expect(isAllowedAddress(ip, true), ip).toBe(false);
    }
  });
});

describe("guardedFetch", () => {
  it("checks A and AAAA of every host name", async () => {
    expect((await refusal(assertPublicHost(env, "v6-private.test"))).reason).toMatch(/unique local/);
    expect((await refusal(assertPublicHost(env, "loopback6.test"))).reason).toMatch(/loopback/);
    expect((await refusal(assertPublicHost(env, "mapped.test"))).reason).toMatch(/IPv4-mapped/);
    expect((await refusal(assertPublicHost(env, "cgnat.test"))).reason).toMatch(/carrier-grade NAT/);
    await expect(assertPublicHost(env, "acme-widgets.test")).resolves.toBeUndefined();
    expect((await refusal(assertPublicHost(prod, "acme-widgets.test"))).kind).toBe("refused");
  });

  it("refuses two-label and hex IPv4 forms and IP literals in development too", async () => {
    for (const url of [
      "http://127.1/",
      "http://0x7f.1/",
      "http://2130706433/",
      "http://[::ffff:7f00:1]/",
      "http://10.0.0.1/",
    ]) {
      expect((await refusal(guardedFetch(env, url, { timeoutMs: 1_000, maxBytes: 1_000 }))).kind, url).toBe("refused");
    }
  });

  it("checks the host of every redirect hop, not only the first", async () => {
    const err = await refusal(
      guardedFetch(env, "https://redirect-private.test/", { timeoutMs: 2_000, maxBytes: 10_000 }),
    );
    expect(err.kind).toBe("refused");
    expect(err.url).toBe("https://intranet.redirect-private.test/");
    expect(err.reason).toMatch(/private/);
  });

  it("cuts the body at maxBytes and does not download the rest", async () => {
    const res = await guardedFetch(env, "https://big-body.test/", { timeoutMs: 10_000, maxBytes: 100_000 });
    expect(res.truncated).toBe(true);
    expect(res.body!.byteLength).toBe(100_000);
    const endless = await guardedFetch(env, "https://endless-body.test/", { timeoutMs: 3_000, maxBytes: 100_000 });
    expect(endless.body!.byteLength).toBe(100_000);
  });

  it("does not read a body whose content type the caller does not accept", async () => {
    const res = await guardedFetch(env, "https://binary.test/", { timeoutMs: 2_000, maxBytes: 1_000_000 });
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
    expect(res.text()).toBe("");
    const bytes = await guardedFetch(env, "https://binary.test/", {
      timeoutMs: 2_000,
      maxBytes: 1_000_000,
      accept: /^application\/octet-stream/,
    });
    expect(bytes.body!.byteLength).toBe(4096);
  });

  it("decodes a brotli body the runtime left encoded, and takes one it decoded (or that is not brotli) as sent", async () => {
    const get = (path: string) =>
      guardedFetch(env, `https://brotli.test${path}`, { timeoutMs: 5_000, maxBytes: 4_000 });
    const encoded = await get("/encoded");
    // The caps count decoded bytes: a small brotli answer cannot grow past them.
    expect(encoded.text()).toMatch(/^<!doctype html><html><body><p>Reach us at hello@brotli\.test\./);
    expect(encoded.body!.byteLength).toBe(4_000);
    expect(encoded.truncated).toBe(true);
    const decoded = await get("/decoded");
    expect(decoded.text()).toMatch(/^<!doctype html>.*hello@brotli\.test/);
    const damaged = await get("/damaged");
    expect(damaged.body!.byteLength).toBe(64);
  });

  it("sends a POST with a body and does not follow redirects for it", async () => {
    const res = await guardedFetch(env, "https://echo.test/hook", {
      method: "POST",
      body: JSON.stringify({ a: 1 }),
      headers: { "content-type": "application/json" },
      timeoutMs: 2_000,
      maxBytes: 10_000,
      accept: /json/,
    });
    expect(JSON.parse(res.text())).toEqual({ method: "POST", body: '{"a":1}', type: "application/json" });
  });

  it("gives up when the time budget runs out", async () => {
    const err = await refusal(guardedFetch(env, "https://slow-site.test/", { timeoutMs: 200, maxBytes: 1_000 }));
    expect(err.kind).toBe("timeout");
  });
});

describe("callers go through the guard", () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await createAccount({ plan: "scale" });
  });
  const get = (path: string) => call(path, { headers: account.headers });

  it("does not crawl a www host that points at a private address", async () => {
    const out = await crawlFirstPass(env, "private-www.test", { ...FIRST_PASS, totalMs: 5_000 });
    expect(out.origin).toBeNull();
    expect(out.pages).toEqual([]);
    expect(out.failure).toMatchObject({ refused: true });
  });

  it("answers 422 url_not_allowed for a domain whose site lives on a private address", async () => {
    const res = await get("/v1/domain-search?domain=private-www.test");
    expect(res.status).toBe(422);
    expect((await json(res)).errors.type).toBe("url_not_allowed");
  });

  it("author-finder refuses an article on a host pointing at a private address, and 127.1 in development", async () => {
    for (const url of [
      "https://intranet.redirect-private.test/post",
      "https://redirect-private.test/post",
      "http://127.1/",
      "http://0x7f.1/admin",
    ]) {
      const res = await get(`/v1/author-finder?url=${encodeURIComponent(url)}`);
      expect(res.status, url).toBe(422);
      const body = await json(res);
      expect(body.errors.type, url).toBe("url_not_allowed");
      expect(JSON.stringify(body)).not.toContain("hunter2");
    }
  });

  it("author-finder answers 422, not 502, for an article on a host that does not exist (found by the fuzz test)", async () => {
    const res = await get("/v1/author-finder?url=5.9224880349566044e-257");
    expect(res.status).toBe(422);
    expect((await json(res)).errors.type).toBe("domain_not_found");
  });

  it("technology refuses a domain on a private address instead of reading it", async () => {
    const res = await get("/v1/technology?domain=tech-private.test");
    expect(res.status).toBe(422);
    expect((await json(res)).errors.type).toBe("url_not_allowed");
  });

  it("technology reads at most its byte cap of the home page instead of the whole body", async () => {
    // The body never ends: reading it whole runs into the time limit (502); a capped read answers.
    const res = await get("/v1/technology?domain=endless-body.test");
    expect(res.status).toBe(200);
  });

  it("reads sitemaps only on the crawled site", async () => {
    await crawlDeepPass(
      env,
      "sitemap-offsite.test",
      { done: [], pending: [] },
      { ...FIRST_PASS, maxPages: 3, totalMs: 5_000 },
    );
    const { hits } = (await (await fetch("https://victim.test/__hits")).json()) as { hits: number };
    expect(hits).toBe(0);
  });
});
