import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../../src/db/client.js";
import { claims, companies, phones } from "../../src/db/schema-index.js";
import { call, createAccount, json } from "../support/accounts.js";
import { indexOf } from "../support/index-db.js";

async function search(query: string) {
  const { headers } = await createAccount();
  return call(`/v1/domain-search?${query}`, { headers });
}

describe("GET /v1/domain-search", () => {
  it("crawls a new domain on demand and lists the addresses its pages publish, with sources", async () => {
    const res = await search("domain=acme-widgets.test&limit=50");
    expect(res.status).toBe(200);
    const body = await json(res);
    const emails = body.data.emails.map((e: { email: string }) => e.email).sort();
    // First pass: home, team, the sitemap's leadership page and press release, contact, about (the
    // /private/ page is refused by robots.txt).
    expect(emails).toEqual([
      "anna-lena.muller@acme-widgets.test",
      "carla.diaz@acme-widgets.test",
      "info@acme-widgets.test",
      "jane.cooper@acme-widgets.test",
      "jobs@careers.acme-widgets.test",
      "john.smith@acme-widgets.test",
      "mary.major@acme-widgets.test",
      "plee@acme-widgets.test",
      "press@acme-widgets.test",
      "robert.brown@acme-widgets.test",
      "sales@acme-widgets.test",
      "security@acme-widgets.test",
      "support@acme-widgets.test",
      "zoe.obrien@acme-widgets.test",
    ]);
    expect(emails).not.toContain("secret.person@acme-widgets.test");
    const jane = body.data.emails.find((e: { email: string }) => e.email === "jane.cooper@acme-widgets.test");
    expect(jane).toMatchObject({
      first_name: "Jane",
      last_name: "Cooper",
      full_name: "Jane Cooper",
      type: "personal",
      position: "Chief Technology Officer",
      department: "engineering",
      seniority: "executive",
      phone_number: false,
      verification: { date: null, status: null },
      pattern: "{first}.{last}",
    });
    expect(Number.isInteger(jane.score)).toBe(true);
    expect(jane.sources).toEqual([
      expect.objectContaining({
        uri: "https://acme-widgets.test/team",
        website_url: "acme-widgets.test",
        still_on_page: true,
      }),
    ]);
    expect(jane.sources[0].extracted_on).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    const sales = body.data.emails.find((e: { email: string }) => e.email === "sales@acme-widgets.test");
    expect(sales).toMatchObject({ type: "generic", first_name: null, department: "sales" });
    expect(body.meta).toEqual({
      total: 14,
      pageSize: 50,
      current: 1,
      total_pages: 1,
      params: {
        domain: "acme-widgets.test",
        page: 1,
        limit: 50,
        department: null,
        country: null,
        type: "all",
        live: true,
      },
    });
  });

  it("answers the organization from the company facts on the pages (string phone, nested location and links)", async () => {
    const body = await json(await search("domain=https://www.acme-widgets.test/about"));
    expect(body.meta.params.live).toBe(false);
    expect(body.data.organization).toMatchObject({
      organization: "Acme Widgets Inc.",
      website_url: "acme-widgets.test",
      description: "Acme Widgets builds industrial widgets.",
      founded: "2009",
      employee_count: 120,
      location: {
        country: "US",
        city: "Springfield",
        state: "IL",
        street_address: "1 Widget Way",
        postal_code: "62701",
      },
      social_links: {
        twitter_url: "https://twitter.com/acmewidgets",
        facebook_url: "https://www.facebook.com/acmewidgets",
        linkedin_url: "https://www.linkedin.com/company/acme-widgets",
      },
      phone_number: "+12175550134",
      disposable: false,
      webmail: false,
      accept_all: false,
      pattern: "{first}.{last}",
    });
    expect(body.data.organization.last_updated).toMatch(/\+00:00$/);
    const stored = await (await indexOf("acme-widgets.test"))
      .select()
      .from(phones)
      .where(eq(phones.domain, "acme-widgets.test"))
      .all();
    expect(stored.map((p) => p.e164).sort()).toEqual(["+12175550134", "+12175550199"]);
    expect(stored.every((p) => p.source === "crawl")).toBe(true);
    const company = await (await indexOf("acme-widgets.test"))
      .select()
      .from(companies)
      .where(eq(companies.domain, "acme-widgets.test"))
      .get();
    expect(company).toMatchObject({
      githubUrl: "https://github.com/acme-widgets",
      youtubeUrl: "https://www.youtube.com/@acmewidgets",
      instagramUrl: "https://www.instagram.com/acmewidgets",
    });
  });

  it("pages, and filters by type and department", async () => {
    const page2 = await json(await search("domain=acme-widgets.test&limit=3&page=2"));
    expect(page2.data.emails).toHaveLength(3);
    expect(page2.meta).toMatchObject({ total: 14, pageSize: 3, current: 2, total_pages: 5 });
    const generic = await json(await search("domain=acme-widgets.test&type=generic&limit=50"));
    expect(generic.data.emails.map((e: { email: string }) => e.email).sort()).toEqual([
      "info@acme-widgets.test",
      "jobs@careers.acme-widgets.test",
      "press@acme-widgets.test",
      "sales@acme-widgets.test",
      "security@acme-widgets.test",
      "support@acme-widgets.test",
    ]);
    expect(generic.meta.params.type).toBe("generic");
    const sales = await json(await search("domain=acme-widgets.test&department=sales"));
    expect(sales.data.emails.map((e: { email: string }) => e.email).sort()).toEqual([
      "john.smith@acme-widgets.test",
      "sales@acme-widgets.test",
    ]);
  });

  it("omits claimed addresses (and does not count them)", async () => {
    await db(env.DB).insert(claims).values({ kind: "email", value: "john.smith@acme-widgets.test", reason: "test" });
    const body = await json(await search("domain=acme-widgets.test&limit=50"));
    expect(body.data.emails.map((e: { email: string }) => e.email)).not.toContain("john.smith@acme-widgets.test");
    expect(body.meta.total).toBe(13);
  });

  it("finds the domain by company name, and answers 422 for an unknown company", async () => {
    const body = await json(await search("company=acme%20widgets"));
    expect(body.meta.params.domain).toBe("acme-widgets.test");
    const res = await search("company=Nobody%20Knows%20Ltd");
    expect(res.status).toBe(422);
    expect((await json(res)).errors).toMatchObject({ type: "unknown_company", code: 422 });
  });

  it("rejects bad input with a 4xx", async () => {
    expect((await search("")).status).toBe(400);
    expect((await search("domain=not%20a%20domain")).status).toBe(400);
    expect((await search("domain=acme-widgets.test&department=space")).status).toBe(400);
    expect((await search("company=ab")).status).toBe(400);
    expect((await search("domain=acme-widgets.test&limit=1000")).status).toBe(400);
  });

  it("answers 502 for a site that cannot be reached, 503 when DNS fails, 422 for a domain that does not exist", async () => {
    const down = await search("domain=down-site.test");
    expect(down.status).toBe(502);
    expect((await json(down)).errors.type).toBe("site_unreachable");
    const dns = await search("domain=dns-broken.test");
    expect(dns.status).toBe(503);
    expect((await json(dns)).errors.type).toBe("dns_unavailable");
    const gone = await search("domain=nowhere-corp.test");
    expect(gone.status).toBe(422);
    expect((await json(gone)).errors.type).toBe("domain_not_found");
  });

  it("answers German sites: Impressum addresses, expanded umlauts in the format", async () => {
    const body = await json(await search("domain=blau-gmbh.test&limit=50"));
    expect(body.data.emails.map((e: { email: string }) => e.email).sort()).toEqual([
      "anna.schmidt@blau-gmbh.test",
      "info@blau-gmbh.test",
      "juergen.weiss@blau-gmbh.test",
      "karriere@blau-gmbh.test",
      "lukasz.nowak@blau-gmbh.test",
      "soeren.oedegaard@blau-gmbh.test",
    ]);
    expect(body.data.organization).toMatchObject({
      organization: "Blau GmbH",
      founded: "1998",
      phone_number: "",
      pattern: "{first}.{last}",
    });
    expect(body.data.organization.location).toMatchObject({ country: "DE", city: "Berlin", postal_code: "10115" });
    expect(body.data.organization.social_links.linkedin_url).toBe("https://de.linkedin.com/company/blau-gmbh");
    const stored = await (await indexOf("blau-gmbh.test"))
      .select()
      .from(phones)
      .where(eq(phones.domain, "blau-gmbh.test"))
      .all();
    expect(stored.map((p) => p.e164)).toEqual(["+49301234567"]);
  });
});
