import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { claims } from "../../src/db/schema-index.js";
import { call, createAccount, json } from "../support/accounts.js";

async function get(path: string) {
  const { headers } = await createAccount();
  return call(path, { headers });
}

describe("GET /v1/email-finder", () => {
  it("returns an address seen verbatim on the site with a high score and its source", async () => {
    const res = await get("/v1/email-finder?domain=acme-widgets.test&first_name=Jane&last_name=Cooper");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({
      email: "jane.cooper@acme-widgets.test",
      first_name: "Jane",
      last_name: "Cooper",
      full_name: "Jane Cooper",
      website_url: "acme-widgets.test",
      company: "Acme Widgets Inc.",
      position: "Chief Technology Officer",
      phone_number: false,
      webmail: false,
      disposable: false,
      pattern: "{first}.{last}",
    });
    expect(data.score).toBe(95);
    expect(data.sources[0]).toMatchObject({ uri: "https://acme-widgets.test/team", still_on_page: true });
    // No SMTP prober in tests: the verifier's open verdict is reported, not a made-up "valid".
    expect(data.verification.status).toBe("unknown");
    expect(data.verification.date).toMatch(/\+00:00$/);
  });

  it("proposes an unseen person's address from the domain's majority format, with a lower integer score", async () => {
    const { data } = await json(
      await get("/v1/email-finder?domain=acme-widgets.test&full_name=Ren%C3%A9e%20D%27Arcy-Smith"),
    );
    // Accent dropped, apostrophe dropped, hyphenated family name joined.
    expect(data.email).toBe("renee.darcysmith@acme-widgets.test");
    expect(data.pattern).toBe("{first}.{last}");
    expect(Number.isInteger(data.score)).toBe(true);
    expect(data.score).toBeGreaterThan(40);
    expect(data.score).toBeLessThan(95);
    expect(data.sources).toEqual([]);
  });

  it("uses the domain's transliteration: expanded umlauts on a site that writes them so", async () => {
    const { data } = await json(
      await get("/v1/email-finder?domain=blau-gmbh.test&first_name=J%C3%B6rg&last_name=M%C3%BCller"),
    );
    expect(data.email).toBe("joerg.mueller@blau-gmbh.test");
  });

  it("answers 451 for a claimed address and does not reveal it", async () => {
    await db(env.DB)
      .insert(claims)
      .values({ kind: "email", value: "john.smith@acme-widgets.test", reason: "owner asked" });
    const res = await get("/v1/email-finder?domain=acme-widgets.test&first_name=John&last_name=Smith");
    expect(res.status).toBe(451);
    const body = await json(res);
    expect(body.errors).toMatchObject({ type: "claimed_email", code: 451 });
    expect(JSON.stringify(body)).not.toContain("john.smith@");
  });

  it("answers 200 with email null (not billed) when a domain gives nothing to learn a format from", async () => {
    const res = await get("/v1/email-finder?domain=generic-only.test&first_name=Ada&last_name=Lovelace");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({ email: null, score: null, first_name: "Ada", last_name: "Lovelace" });
  });

  it("rejects missing names and webmail domains with a 4xx, and a dead site with 502", async () => {
    expect((await get("/v1/email-finder?domain=acme-widgets.test&first_name=Jane")).status).toBe(400);
    expect((await get("/v1/email-finder?domain=acme-widgets.test&full_name=Madonna")).status).toBe(400);
    expect((await get("/v1/email-finder?first_name=Jane&last_name=Cooper")).status).toBe(400);
    const webmail = await get("/v1/email-finder?domain=gmail.com&first_name=Jane&last_name=Cooper");
    expect(webmail.status).toBe(422);
    expect((await get("/v1/email-finder?domain=down-site.test&first_name=Jane&last_name=Cooper")).status).toBe(502);
  });
});

describe("GET /v1/email-format", () => {
  it("answers mixed formats with integer percentages that sum to 100", async () => {
    const res = await get("/v1/email-format?domain=acme-widgets.test");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.map((d: { format: string }) => d.format)).toEqual(["{first}.{last}", "{f}{last}"]);
    expect(data.reduce((a: number, d: { percentage: number }) => a + d.percentage, 0)).toBe(100);
    expect(data.every((d: { percentage: number }) => Number.isInteger(d.percentage))).toBe(true);
    expect(data[0].percentage).toBeGreaterThan(data[1].percentage);
  });

  it("answers the Python client's /v1/format?domain= alike (an alias, left out of the OpenAPI document)", async () => {
    const canonical = await json(await get("/v1/email-format?domain=acme-widgets.test"));
    const res = await get("/v1/format?domain=acme-widgets.test");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(canonical);
    const doc = await json(await get("/v1/openapi.json"));
    expect(doc.paths).not.toHaveProperty(["/format"]);
  });

  it("answers an empty list when no named address is published", async () => {
    const { data } = await json(await get("/v1/email-format?domain=cloudy-tools.test"));
    // cloudy-tools only shows Kim Park (kim.park) and Mike Chen (mike): two formats, one address each.
    expect(data.map((d: { format: string }) => d.format).sort()).toEqual(["{first}", "{first}.{last}"]);
  });
});

describe("GET /v1/email-count", () => {
  it("counts by type, department and seniority with every contract key present", async () => {
    const { data } = await json(await get("/v1/email-count?domain=blau-gmbh.test"));
    expect(data.total).toBe(data.personal_emails + data.generic_emails);
    expect(data.generic_emails).toBe(2);
    expect(data.personal_emails).toBe(4);
    expect(Object.keys(data.department).sort()).toEqual([
      "accounting",
      "administrative",
      "communication",
      "diversity",
      "engineering",
      "executive",
      "facilities",
      "finance",
      "hr",
      "it",
      "legal",
      "management",
      "marketing",
      "operations",
      "pr",
      "sales",
      "security",
      "software",
      "support",
      "warehouse",
    ]);
    expect(data.department.hr).toBe(1); // karriere@
    expect(data.department.accounting).toBe(1); // Leiterin Buchhaltung
    expect(Object.keys(data.seniority).sort()).toEqual(["executive", "junior", "senior"]);
    expect(data.seniority.senior).toBeGreaterThanOrEqual(1);
  });
});

describe("bad input on format and count", () => {
  it("answers a missing or malformed domain with 400 and an unknown one with 422", async () => {
    for (const path of ["/v1/email-format", "/v1/email-count"]) {
      expect((await get(path)).status, path).toBe(400);
      expect((await get(`${path}?domain=%20`)).status, path).toBe(400);
      expect((await get(`${path}?domain=127.0.0.1`)).status, path).toBe(400);
      expect((await get(`${path}?domain=nowhere-corp.test`)).status, path).toBe(422);
    }
  });
});

describe("OpenAPI", () => {
  it("documents each finder capability once, and keeps the /email-sources/ alias out of the document", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    for (const path of [
      "/domain-search",
      "/email-finder",
      "/email-format",
      "/email-count",
      "/email-sources",
      "/email-sources/{email}",
      "/author-finder",
    ]) {
      expect(doc.paths, path).toHaveProperty([path, "get"]);
    }
    expect(doc.paths).not.toHaveProperty(["/email-sources/"]);
  });
});

describe("GET /v1/email-sources", () => {
  it("answers {email, data: Source[]} on ?email=, /{email} and the JS client's /?email=", async () => {
    for (const path of [
      "/v1/email-sources?email=sales%40acme-widgets.test",
      "/v1/email-sources/sales@acme-widgets.test",
      "/v1/email-sources/?email=sales%40acme-widgets.test",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      const body = await json(res);
      expect(body.email).toBe("sales@acme-widgets.test");
      expect(body.data).toEqual([
        expect.objectContaining({
          uri: "https://acme-widgets.test/contact",
          website_url: "acme-widgets.test",
          still_on_page: true,
        }),
      ]);
    }
  });

  it("answers an unknown address with an empty list, bad input with 400, a claimed one with 451", async () => {
    const none = await json(await get("/v1/email-sources?email=nobody%40acme-widgets.test"));
    expect(none).toEqual({ email: "nobody@acme-widgets.test", data: [] });
    expect((await get("/v1/email-sources?email=not-an-email")).status).toBe(400);
    await db(env.DB).insert(claims).values({ kind: "email", value: "plee@acme-widgets.test", reason: null });
    expect((await get("/v1/email-sources?email=plee%40acme-widgets.test")).status).toBe(451);
  });
});
