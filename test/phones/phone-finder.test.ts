import { beforeAll, describe, expect, it } from "vitest";
import { claim, importRows } from "../people/support.js";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount({ plan: "scale" }); // no rate limits: these tests call in bursts
  await importRows([
    { kind: "company", domain: "vandelay.test", name: "Vandelay Industries", phone: "+1 212 555 0100", country: "US" },
    { kind: "phone", domain: "vandelay.test", phone: "+1 800 234 5678" },
    {
      kind: "person",
      email: "art@vandelay.test",
      first_name: "Art",
      last_name: "Vandelay",
      linkedin: "https://www.linkedin.com/in/art-vandelay-test",
      phone: "+33612345678",
    },
    { kind: "phone", email: "art@vandelay.test", phone: "+44 7400 123456" },
    { kind: "person", email: "kramer@vandelay.test", first_name: "Cosmo", last_name: "Kramer", phone: "+33698765431" },
    { kind: "person", email: "newman@vandelay.test", first_name: "Newman" },
    { kind: "person", email: "elaine@vandelay.test", first_name: "Elaine", last_name: "Benes" },
  ]);
  await claim("phone", "+33698765431");
  await claim("email", "elaine@vandelay.test");
  await claim("linkedin", "linkedin.com/in/removed-profile-test");
});

const get = (path: string) => call(path, { headers: account.headers });

describe("GET /v1/phone-finder", () => {
  it("finds a person's number by email, with every PhoneData field and the lookup key echoed", async () => {
    const res = await get("/v1/phone-finder?email=Art%40Vandelay.test");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.email).toBe("art@vandelay.test");
    expect(["+447400123456", "+33612345678"]).toContain(data.e164_format);
    expect(data).toMatchObject({ valid: true, line_type: "MOBILE", carrier: "" });
    expect(Array.isArray(data.timezones)).toBe(true);
  });

  it("full=true returns every number of the person as an array", async () => {
    const { data } = await json(await get("/v1/phone-finder?email=art@vandelay.test&full=true"));
    expect(data.map((d: any) => d.e164_format).sort()).toEqual(["+33612345678", "+447400123456"]);
    expect(data.find((d: any) => d.country_code === "GB").timezones).toEqual(["Europe/London"]);
  });

  it("finds the company's numbers by domain, the company's own number first, never people's", async () => {
    const { data } = await json(await get("/v1/phone-finder?domain=https://www.vandelay.test/contact&full=true"));
    expect(data.map((d: any) => [d.domain, d.e164_format, d.line_type])).toEqual([
      ["vandelay.test", "+12125550100", "FIXED_LINE_OR_MOBILE"],
      ["vandelay.test", "+18002345678", "TOLL_FREE"],
    ]);
  });

  it("finds by profile URL, under professional_network or its alias linkedin", async () => {
    for (const q of ["professional_network=https://linkedin.com/in/art-vandelay-test/", "linkedin=art-vandelay-test"]) {
      const { data } = await json(await get(`/v1/phone-finder?${q}&full=true`));
      expect(data).toHaveLength(2);
      expect(data[0].linkedin).toBe("https://www.linkedin.com/in/art-vandelay-test");
    }
  });

  it("answers data=null for a person without a number (not billed: found=false)", async () => {
    const res = await get("/v1/phone-finder?email=newman@vandelay.test");
    expect(res.status).toBe(200);
    expect((await json(res)).data).toBeNull();
    expect((await json(await get("/v1/phone-finder?email=newman@vandelay.test&full=true"))).data).toEqual([]);
  });

  it("answers 451 claimed_phone when the only number was removed", async () => {
    const res = await get("/v1/phone-finder?email=kramer@vandelay.test");
    expect(res.status).toBe(451);
    expect((await json(res)).errors.type).toBe("claimed_phone");
  });

  it("answers 451 claimed_email and claimed_linkedin for removed people", async () => {
    const e = await get("/v1/phone-finder?email=elaine@vandelay.test");
    expect(e.status).toBe(451);
    expect((await json(e)).errors.type).toBe("claimed_email");
    const l = await get("/v1/phone-finder?linkedin=https://www.linkedin.com/in/removed-profile-test?trk=x");
    expect(l.status).toBe(451);
    expect((await json(l)).errors.type).toBe("claimed_linkedin");
  });

  it("wants exactly one valid lookup key", async () => {
    for (const q of [
      "",
      "email=a@b.test&domain=b.test",
      "email=not-an-address",
      "domain=not a domain",
      "linkedin=https://example.test/x",
    ]) {
      const res = await get(`/v1/phone-finder?${q}`);
      expect(res.status, q).toBe(400);
      expect((await json(res)).errors.type).toBe("params_invalid");
    }
  });
});

describe("GET /v1/phone/{email} (legacy)", () => {
  it("answers the same data with timezones as a string", async () => {
    const { data } = await json(await get("/v1/phone/art@vandelay.test"));
    expect(data.email).toBe("art@vandelay.test");
    expect(typeof data.timezones).toBe("string");
    expect(data.timezones.length).toBeGreaterThan(0);
  });

  it("answers the Python client's /v1/phone/?email= alike, and says which parameter is missing", async () => {
    const byPath = await json(await get("/v1/phone/art@vandelay.test"));
    const res = await get("/v1/phone/?email=art%40vandelay.test");
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(byPath);
    const missing = await get("/v1/phone/");
    expect(missing.status).toBe(400);
    expect((await json(missing)).errors.message).toContain("email");
  });

  it("keeps the claims", async () => {
    expect((await get("/v1/phone/kramer@vandelay.test")).status).toBe(451);
  });
});
