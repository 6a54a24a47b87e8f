import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { addClaim } from "../../src/engine/index/claims.js";
import { call, createAccount, json, type TestAccount } from "../support/accounts.js";

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount({ plan: "scale" }); // no rate limits: these tests call in bursts
});

const validate = (query: string) => call(`/v1/phone-validator?${query}`, { headers: account.headers });

describe("GET /v1/phone-validator", () => {
  it("answers a French mobile in E.164 with every format, offline", async () => {
    const res = await validate("phone=%2B33612345678");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toEqual({
      valid: true,
      e164_format: "+33612345678",
      intl_format: "+33 6 12 34 56 78",
      local_format: "06 12 34 56 78",
      rfc3966_format: "tel:+33612345678",
      country_code: "FR",
      line_type: "MOBILE",
      carrier: "",
      timezones: ["Europe/Paris"],
    });
  });

  it("reads a national number with country_code (and its alias country)", async () => {
    const a = (await json(await validate("phone=06%2012%2034%2056%2078&country_code=fr"))).data;
    const b = (await json(await validate("phone=0612345678&country=FR"))).data;
    expect(a.e164_format).toBe("+33612345678");
    expect(b).toEqual(a);
  });

  it("knows a US toll-free number and lists the zones of its country", async () => {
    const { data } = await json(await validate("phone=%2B18002345678"));
    expect(data.valid).toBe(true);
    expect(data.line_type).toBe("TOLL_FREE");
    expect(data.country_code).toBe("US");
    expect(data.local_format).toBe("(800) 234-5678");
    expect(data.timezones).toContain("America/New_York");
    expect(data.timezones).toContain("America/Los_Angeles");
    expect(data.carrier).toBe("");
  });

  it("tells a fixed line from a mobile", async () => {
    const { data } = await json(await validate("phone=%2B442079460000"));
    expect(data).toMatchObject({
      valid: true,
      country_code: "GB",
      line_type: "FIXED_LINE",
      timezones: ["Europe/London"],
    });
  });

  it("answers valid=false for a number that is too short, without inventing formats", async () => {
    const res = await validate("phone=%2B3361234");
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toMatchObject({ valid: false, e164_format: null, line_type: null, timezones: [], carrier: "" });
  });

  it("answers valid=false for text that is not a number", async () => {
    const { data } = await json(await validate("phone=call-me-maybe"));
    expect(data.valid).toBe(false);
  });

  it("asks for a country when a national number comes without one", async () => {
    const res = await validate("phone=0612345678");
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.errors.type).toBe("params_invalid");
    expect(body.errors.message).toMatch(/country_code/);
  });

  it("rejects an unknown country code and a missing phone with 400", async () => {
    expect((await validate("phone=0612345678&country_code=ZZ")).status).toBe(400);
    const res = await validate("");
    expect(res.status).toBe(400);
    expect((await json(res)).errors.message).toMatch(/phone/);
  });

  it("answers 451 claimed_phone for a removed number, whatever its spelling", async () => {
    await addClaim(env, "phone", "+33698765432", "owner request");
    for (const q of ["phone=%2B33698765432", "phone=06%2098%2076%2054%2032&country_code=FR"]) {
      const res = await validate(q);
      expect(res.status).toBe(451);
      expect((await json(res)).errors.type).toBe("claimed_phone");
    }
  });

  it("needs credentials (missing ones are a 400 per the spec)", async () => {
    expect((await call("/v1/phone-validator?phone=%2B33612345678")).status).toBe(400);
  });
});
