import { beforeAll, describe, expect, it } from "vitest";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";
import { indexD1Of } from "../support/index-db.js";
import { claim, importRows } from "./support.js";

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount({ plan: "scale" }); // no rate limits: these tests call in bursts
  await importRows([
    {
      kind: "company",
      domain: "initech.test",
      name: "Initech",
      industry: "Computer Software",
      company_size: "51-250",
      company_type: "private",
      founded: "1999",
      country: "US",
      state: "TX",
      city: "Austin",
      linkedin_url: "https://www.linkedin.com/company/initech-test",
      employee_count: "120",
    },
    {
      kind: "person",
      email: "peter.gibbons@initech.test",
      first_name: "Peter",
      last_name: "Gibbons",
      position: "Software Engineer",
      department: "engineering",
      seniority: "junior",
      country: "US",
      gender: "male",
      linkedin: "https://www.linkedin.com/in/peter-gibbons-test",
      twitter: "https://twitter.com/peter_test",
      phone: "+1 512 555 0101",
    },
    {
      kind: "person",
      email: "bill.lumbergh@initech.test",
      first_name: "Bill",
      last_name: "Lumbergh",
      position: "Vice President",
      department: "management",
      seniority: "executive",
      country: "US",
      linkedin: "https://www.linkedin.com/in/bill-lumbergh-test",
      phone: "+33612345678",
    },
    {
      kind: "person",
      email: "bob.slydell@initech.test",
      first_name: "Bob",
      last_name: "Slydell",
      position: "Consultant",
      seniority: "executive",
    },
    {
      kind: "person",
      email: "milton@initech.test",
      first_name: "Milton",
      last_name: "Waddams",
      linkedin: "https://www.linkedin.com/in/milton-test",
      phone: "+33698765432",
    },
    {
      kind: "person",
      email: "samir@initech.test",
      first_name: "Samir",
      last_name: "Nagheenanajar",
      linkedin: "https://www.linkedin.com/in/samir-test",
    },
    {
      kind: "person",
      email: "s.nagheenanajar@initech.test",
      first_name: "Samir",
      last_name: "Nagheenanajar",
      linkedin: "https://www.linkedin.com/in/samir-test",
    },
    {
      kind: "person",
      email: "joanna@chotchkies.test",
      first_name: "Joanna",
      linkedin: "https://www.linkedin.com/in/joanna-test",
    },
    { kind: "person", email: "tom@globex.test", first_name: "Tom", last_name: "Smykowski", position: "Liaison" },
  ]);
  await claim("email", "bob.slydell@initech.test");
  await claim("email", "joanna@chotchkies.test");
  await claim("phone", "+33698765432");
  await claim("linkedin", "https://www.linkedin.com/in/peter-gibbons-test");
});

const get = (path: string) => call(path, { headers: account.headers });

describe("GET /v1/enrich", () => {
  it("answers FinderData for a stored person, with the company name and nothing invented", async () => {
    const res = await get("/v1/enrich?email=Bill.Lumbergh@initech.test");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({
      email: "bill.lumbergh@initech.test",
      first_name: "Bill",
      last_name: "Lumbergh",
      full_name: "Bill Lumbergh",
      website_url: "initech.test",
      company: "Initech",
      position: "Vice President",
      department: "management",
      country: "US",
      gender: null,
      linkedin: "https://www.linkedin.com/in/bill-lumbergh-test",
      professional_network: "https://www.linkedin.com/in/bill-lumbergh-test",
      twitter: null,
      phone_number: true,
      accept_all: null,
      disposable: false,
      webmail: false,
      verification: { date: null, status: null },
      sources: [],
    });
    expect(Number.isInteger(data.score)).toBe(true);
    expect(data.phone_data).toBeUndefined();
  });

  it("answers data=null for an unknown address (found=false)", async () => {
    const res = await get("/v1/enrich?email=nobody@initech.test");
    expect(res.status).toBe(200);
    expect((await json(res)).data).toBeNull();
  });

  it("adds phone_data with enrich_mobile=true", async () => {
    const { data } = await json(await get("/v1/enrich?email=bill.lumbergh@initech.test&enrich_mobile=true"));
    expect(data.phone_data).toMatchObject({
      email: "bill.lumbergh@initech.test",
      e164_format: "+33612345678",
      valid: true,
      line_type: "MOBILE",
    });
  });

  it("leaves out a claimed number (phone_data null) and a claimed profile URL", async () => {
    const milton = (await json(await get("/v1/enrich?email=milton@initech.test&enrich_mobile=true"))).data;
    expect(milton.phone_data).toBeNull();
    const peter = (await json(await get("/v1/enrich?email=peter.gibbons@initech.test"))).data;
    expect(peter.linkedin).toBeNull();
    expect(peter.twitter).toBe("https://twitter.com/peter_test");
  });

  it("answers 451 claimed_email for a removed address, and 400 for a malformed one", async () => {
    const res = await get("/v1/enrich?email=BOB.SLYDELL@initech.test");
    expect(res.status).toBe(451);
    expect((await json(res)).errors.type).toBe("claimed_email");
    expect((await get("/v1/enrich?email=bob")).status).toBe(400);
  });
});

describe("GET /v1/people/find", () => {
  it("finds a person by email", async () => {
    const { data } = await json(await get("/v1/people/find?email=peter.gibbons@initech.test"));
    expect(data).toMatchObject({
      email: "peter.gibbons@initech.test",
      seniority: "junior",
      company: "Initech",
      type: "personal",
      gender: "male",
    });
  });

  it("answers the most senior unclaimed person for a domain", async () => {
    const { data } = await json(await get("/v1/people/find?domain=initech.test"));
    // Bob Slydell is executive too but was claimed, so he is skipped.
    expect(data.email).toBe("bill.lumbergh@initech.test");
  });

  it("answers 451 claimed_email by email, data=null for an unknown domain, 400 without a key", async () => {
    const res = await get("/v1/people/find?email=bob.slydell@initech.test");
    expect(res.status).toBe(451);
    expect((await json(res)).errors.type).toBe("claimed_email");
    expect((await json(await get("/v1/people/find?domain=unknown-people.test"))).data).toBeNull();
    expect((await get("/v1/people/find")).status).toBe(400);
  });
});

describe("GET /v1/companies/find", () => {
  it("answers an imported company as a flat organization", async () => {
    const { data } = await json(await get("/v1/companies/find?domain=https://www.initech.test/"));
    expect(data.organization).toMatchObject({
      name: "Initech",
      website_url: "initech.test",
      industries: "Computer Software",
      company_size: "51-250",
      company_type: "private",
      founded: "1999",
      country: "US",
      city: "Austin",
      state: "TX",
      employee_count: 120,
      linkedin_url: "https://www.linkedin.com/company/initech-test",
      twitter_url: null,
      description: null,
      revenue: null,
    });
  });

  it("reads an unknown company from its own site (JSON-LD, social links, tel:) and stores it", async () => {
    const { data } = await json(await get("/v1/companies/find?domain=globex.test"));
    expect(data.organization).toMatchObject({
      name: "Globex Corporation",
      logo: "https://globex.test/logo.png",
      founded: "1989",
      employee_count: 420,
      country: "US",
      city: "Springfield",
      street_address: "1 Cypress Creek Rd",
      postal_code: "97477",
      phone_number: "+14155550132",
      linkedin_url: "https://www.linkedin.com/company/globex-test",
      facebook_url: "https://www.facebook.com/globextest",
      revenue: null,
      industries: null,
      source: "crawl",
    });
    const stored = await (await indexD1Of("globex.test"))
      .prepare("SELECT name FROM companies WHERE domain = 'globex.test'")
      .first();
    expect(stored).toEqual({ name: "Globex Corporation" });
    const phones = await (await indexD1Of("globex.test"))
      .prepare("SELECT e164 FROM phones WHERE domain = 'globex.test' AND email IS NULL ORDER BY e164")
      .all();
    expect(phones.results.map((r) => r.e164)).toContain("+14155550132");
  });

  it("answers organization=null for a site that states nothing, 502 when it cannot be reached, 422 for no such domain", async () => {
    const plain = await get("/v1/companies/find?domain=plainsite.test");
    expect(plain.status).toBe(200);
    expect((await json(plain)).data.organization).toBeNull();
    const offline = await get("/v1/companies/find?domain=offline-people.test");
    expect(offline.status).toBe(502);
    expect((await json(offline)).errors.type).toBe("site_unreachable");
    const missing = await get("/v1/companies/find?domain=nowhere-people.test");
    expect(missing.status).toBe(422);
    expect((await json(missing)).errors.type).toBe("domain_not_found");
    expect((await get("/v1/companies/find?domain=not_a_domain")).status).toBe(400);
  });
});

describe("GET /v1/combined/find", () => {
  it("answers person and company together", async () => {
    const { data } = await json(await get("/v1/combined/find?email=bill.lumbergh@initech.test"));
    expect(data.person).toMatchObject({ email: "bill.lumbergh@initech.test", company: "Initech" });
    expect(data.company.organization).toMatchObject({ name: "Initech", website_url: "initech.test" });
  });

  it("answers the company even when the person is unknown, and 451 for a claimed address", async () => {
    const { data } = await json(await get("/v1/combined/find?email=someone.new@initech.test"));
    expect(data.person).toBeNull();
    expect(data.company.organization.name).toBe("Initech");
    const res = await get("/v1/combined/find?email=bob.slydell@initech.test");
    expect(res.status).toBe(451);
    expect((await json(res)).errors.type).toBe("claimed_email");
  });
});

describe("GET /v1/professional-network (alias /linkedin)", () => {
  it("answers the address behind a profile URL, however it is spelled", async () => {
    for (const path of [
      "/v1/professional-network?url=https://www.linkedin.com/in/bill-lumbergh-test",
      "/v1/linkedin?url=linkedin.com/in/Bill-Lumbergh-Test/?trk=abc",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect((await json(res)).data).toMatchObject({
        email: "bill.lumbergh@initech.test",
        company: "Initech",
        full_name: "Bill Lumbergh",
      });
    }
  });

  it("full=true returns every stored address", async () => {
    const one = (await json(await get("/v1/professional-network?url=https://www.linkedin.com/in/samir-test"))).data;
    expect(typeof one.email).toBe("string");
    const all = (await json(await get("/v1/professional-network?url=https://www.linkedin.com/in/samir-test&full=true")))
      .data;
    expect(all.map((d: any) => d.email).sort()).toEqual(["s.nagheenanajar@initech.test", "samir@initech.test"]);
  });

  it("adds phone_data with enrich_mobile, and 451 claimed_phone when the person's only number was removed", async () => {
    const { data } = await json(
      await get("/v1/professional-network?url=https://www.linkedin.com/in/bill-lumbergh-test&enrich_mobile=true"),
    );
    expect(data.phone_data.e164_format).toBe("+33612345678");
    const res = await get("/v1/professional-network?url=https://www.linkedin.com/in/milton-test&enrich_mobile=true");
    expect(res.status).toBe(451);
    expect((await json(res)).errors.type).toBe("claimed_phone");
  });

  it("answers 451 claimed_linkedin for a removed profile and claimed_email when its only address was removed", async () => {
    const l = await get("/v1/professional-network?url=https://www.linkedin.com/in/peter-gibbons-test");
    expect(l.status).toBe(451);
    expect((await json(l)).errors.type).toBe("claimed_linkedin");
    const e = await get("/v1/professional-network?url=https://www.linkedin.com/in/joanna-test");
    expect(e.status).toBe(451);
    expect((await json(e)).errors.type).toBe("claimed_email");
  });

  it("answers data=null for an unknown profile and 400 for a URL that is not a profile", async () => {
    expect(
      (await json(await get("/v1/professional-network?url=https://www.linkedin.com/in/nobody-test"))).data,
    ).toBeNull();
    expect((await get("/v1/professional-network?url=https://example.test/in/x")).status).toBe(400);
  });
});
