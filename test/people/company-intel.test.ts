import { beforeAll, describe, expect, it } from "vitest";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";
import { importRows } from "./support.js";

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount({ plan: "scale" }); // no rate limits: these tests call in bursts
  const company = (domain: string, extra: Record<string, unknown>) => ({ kind: "company", domain, ...extra });
  await importRows([
    company("initech.test", {
      name: "Initech",
      industry: "Computer Software",
      country: "US",
      state: "TX",
      city: "Austin",
      company_size: "51-250",
      company_type: "private",
      founded: "1999",
      keywords: ["software", "banking"],
      technologies: ["microsoft-365", "stripe", "tps-reports"],
      phone: "+1 512 555 0100",
    }),
    company("initrode.test", {
      name: "Initrode",
      industry: "Computer Software",
      country: "US",
      state: "TX",
      city: "Austin",
      company_size: "51-250",
      founded: "2004",
      keywords: ["software", "printers"],
      technologies: ["stripe", "tps-reports"],
    }),
    company("penetrode.test", {
      name: "Penetrode GmbH",
      industry: "computer software",
      country: "DE",
      city: "Berlin",
      founded: "2010",
      keywords: ["software"],
    }),
    company("hooli-search.test", {
      name: "Hooli",
      industry: "Internet",
      country: "US",
      state: "CA",
      city: "Palo Alto",
      company_size: "10K-50K",
      company_type: "public",
      founded: "1998",
      keywords: ["search", "software"],
      technologies: ["google-workspace"],
    }),
    company("chotchkies.test", {
      name: "Chotchkie's",
      industry: "Restaurants",
      country: "US",
      state: "TX",
      city: "Austin",
      keywords: ["food", "flair"],
    }),
    company("initiative-labs.test", { name: "Initiative Labs", industry: "Research", country: "GB", city: "London" }),
    { kind: "person", email: "peter@initech.test", first_name: "Peter", country: "US" },
    { kind: "person", email: "michael@initech.test", first_name: "Michael", country: "US" },
    { kind: "person", email: "samir@initech.test", first_name: "Samir", country: "US" },
    { kind: "person", email: "nina@initech.test", first_name: "Nina", country: "CA" },
    { kind: "person", email: "anon@initech.test", first_name: "Anon" },
    { kind: "person", email: "gavin@hooli-search.test", first_name: "Gavin", country: "US" },
  ]);
});

const get = (path: string) => call(path, { headers: account.headers });
// Reveal has a fixed 5/s limit on every plan, so each search here runs as its own account.
const reveal = async (body: unknown, headers?: Record<string, string>) =>
  call("/v1/reveal/search", {
    method: "POST",
    headers: { ...(headers ?? (await createAccount({ plan: "scale" })).headers), "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("GET /v1/similar", () => {
  it("ranks companies by shared industry, keywords, technologies and place, with meta", async () => {
    const res = await get("/v1/similar?domain=initech.test");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.data.map((d: any) => d.website_url)).toEqual(["initrode.test", "penetrode.test", "hooli-search.test"]);
    expect(body.data[0]).toMatchObject({ name: "Initrode", industries: "Computer Software" });
    // Chotchkie's shares only the city: location alone is not similarity.
    expect(body.data.map((d: any) => d.website_url)).not.toContain("chotchkies.test");
    expect(body.meta).toEqual({ total: 3, page: 1, limit: 10, pageSize: 10, current: 1, total_pages: 1 });
  });

  it("pages with page and limit", async () => {
    const body = await json(await get("/v1/similar?domain=initech.test&page=2&limit=2"));
    expect(body.data.map((d: any) => d.website_url)).toEqual(["hooli-search.test"]);
    expect(body.meta).toMatchObject({ total: 3, page: 2, limit: 2, total_pages: 2 });
    expect((await get("/v1/similar?domain=initech.test&limit=1000")).status).toBe(400);
  });
});

describe("GET /v1/location", () => {
  it("counts the domain's people per country, leaving out unknown countries", async () => {
    const { data } = await json(await get("/v1/location?domain=initech.test"));
    expect(data).toEqual([
      { name: "US", total: 3 },
      { name: "CA", total: 1 },
    ]);
    expect((await json(await get("/v1/location?domain=unknown-location.test"))).data).toEqual([]);
  });
});

describe("GET /v1/domain-suggestions (alias /domains-suggestion)", () => {
  it("suggests imported companies by name or partial domain, best match first", async () => {
    const res = await get("/v1/domain-suggestions?query=Init");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.data[0]).toEqual({
      name: "Initech",
      domain: "initech.test",
      website_url: "initech.test",
      email_count: 5,
      logo: null,
    });
    expect(body.data.map((d: any) => d.domain).sort()).toEqual([
      "initech.test",
      "initiative-labs.test",
      "initrode.test",
    ]);
    expect(body.meta).toEqual({ query: "Init", limit: 10, total_found: 3 });
    const legacy = await json(await get("/v1/domains-suggestion?query=hooli"));
    expect(legacy.data.map((d: any) => d.domain)).toEqual(["hooli-search.test"]);
  });

  it("treats LIKE wildcards literally and wants 2+ characters", async () => {
    expect((await json(await get("/v1/domain-suggestions?query=%25%25"))).data).toEqual([]);
    expect((await get("/v1/domain-suggestions?query=i")).status).toBe(400);
  });
});

describe("POST /v1/reveal/search", () => {
  it("filters with flat include/exclude filters and answers the reveal shape", async () => {
    const res = await reveal({
      filters: { location_country: { include: ["US"] }, industry: { include: ["computer software"], exclude: [] } },
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.success).toBe(true);
    expect(body.data.companies.map((c: any) => c.website_url)).toEqual(["initech.test", "initrode.test"]);
    expect(body.data).toMatchObject({ total: 2, page: 1, limit: 10, pages: 1 });
    expect(body.meta).toMatchObject({ total: 2, page: 1, limit: 10, pages: 1 });
    expect(body.meta.filters.location_country).toEqual({ include: ["US"], exclude: [] });
    expect(body.data.companies[0]).toMatchObject({
      name: "Initech",
      type: "private",
      total_emails: 5,
      phone_number: true,
      total_similar: null,
    });
    expect(typeof body.message).toBe("string");
  });

  it("accepts the nested shape filters.company.{...} with the same meaning", async () => {
    const body = await json(
      await reveal({
        filters: {
          company: { location_country: { include: ["United States"] }, industry: { include: ["Computer Software"] } },
        },
      }),
    );
    expect(body.data.companies.map((c: any) => c.website_url)).toEqual(["initech.test", "initrode.test"]);
  });

  it("excludes, matches JSON lists (technologies, keywords), founded ranges, company names and similar domains", async () => {
    const names = async (filters: unknown, extra: object = {}) =>
      (await json(await reveal({ filters, ...extra }))).data.companies.map((c: any) => c.website_url).sort();
    expect(await names({ keywords: { include: ["software"] }, location_country: { exclude: ["US"] } })).toEqual([
      "penetrode.test",
    ]);
    expect(await names({ technologies: { include: ["Stripe"] }, company: { exclude: ["initrode"] } })).toEqual([
      "initech.test",
    ]);
    expect(await names({ founded: { include: ["1995-2000"] } })).toEqual(["hooli-search.test", "initech.test"]);
    expect(await names({ company: { include: ["init"] }, size: { include: ["51-250"] } })).toEqual([
      "initech.test",
      "initrode.test",
    ]);
    expect(await names({ similar: { include: ["initech.test"] }, location_city: { include: ["austin"] } })).toEqual([
      "initrode.test",
    ]);
    expect(await names({ sic: { include: ["7372"] } })).toEqual([]);
    expect(await names(undefined, { query: "software companies in Berlin" })).toContain("penetrode.test");
  });

  it("pages and projects with _source", async () => {
    const body = await json(
      await reveal({
        filters: { location_country: { include: ["US"] } },
        page: 2,
        limit: 2,
        _source: ["name", "website_url"],
      }),
    );
    expect(body.data).toMatchObject({ total: 4, page: 2, limit: 2, pages: 2 });
    expect(Object.keys(body.data.companies[0]).sort()).toEqual(["name", "website_url"]);
  });

  it("answers 400 to unknown filters, bad shapes and pages out of range", async () => {
    for (const bad of [
      { filters: { colour: { include: ["red"] } } },
      { filters: { industry: { include: [1] } } },
      { filters: { founded: { include: ["last year"] } } },
      { filters: { location_country: { include: ["Atlantis"] } } },
      { page: 1001 },
      { page: 0 },
    ]) {
      const res = await reveal(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect((await json(res)).errors.type).toBe("params_invalid");
    }
  });

  it("needs credentials", async () => {
    const res = await reveal({}, {} as Record<string, string>);
    expect(res.status).toBe(400);
  });
});
