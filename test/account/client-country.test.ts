import { describe, expect, it } from "vitest";
import { COUNTRY_TTL_MS, clientCountry } from "../../src/platform/client-country.js";

/** A request whose `cf` counts how often it is read (each read builds the whole object in workerd). */
function request(headers: Record<string, string>, country: string | undefined) {
  const reads = { cf: 0 };
  const req = new Request("https://api.test/v1/me", { headers });
  Object.defineProperty(req, "cf", {
    get() {
      reads.cf += 1;
      return country === undefined ? undefined : { country, colo: "CDG", asn: 1 };
    },
  });
  return { req, reads };
}

describe("the caller's country in a request-log row", () => {
  it("comes from the CF-IPCountry header when the edge sets it, without reading request.cf", () => {
    const { req, reads } = request({ "cf-ipcountry": "DE", "cf-connecting-ip": "198.51.100.1" }, "FR");
    expect(clientCountry(req, 1_000)).toBe("DE");
    expect(reads.cf).toBe(0);
  });

  it("is read from request.cf once per client address, then remembered for COUNTRY_TTL_MS", () => {
    const t = 5_000_000;
    const first = request({ "cf-connecting-ip": "203.0.113.7" }, "FR");
    expect(clientCountry(first.req, t)).toBe("FR");
    expect(first.reads.cf).toBe(1);

    const again = request({ "cf-connecting-ip": "203.0.113.7" }, "FR");
    expect(clientCountry(again.req, t + COUNTRY_TTL_MS - 1)).toBe("FR");
    expect(again.reads.cf).toBe(0);

    const other = request({ "cf-connecting-ip": "203.0.113.8" }, "JP");
    expect(clientCountry(other.req, t + 1)).toBe("JP");
    expect(other.reads.cf).toBe(1);

    const later = request({ "cf-connecting-ip": "203.0.113.7" }, "BE");
    expect(clientCountry(later.req, t + COUNTRY_TTL_MS)).toBe("BE");
    expect(later.reads.cf).toBe(1);
  });

  it("is read from request.cf on every request that names no client address, and is null when cf has none", () => {
    for (let i = 0; i < 2; i++) {
      const { req, reads } = request({}, "NL");
      expect(clientCountry(req, 9_000_000)).toBe("NL");
      expect(reads.cf).toBe(1);
    }
    const bare = request({ "cf-connecting-ip": "192.0.2.9" }, undefined);
    expect(clientCountry(bare.req, 9_000_000)).toBeNull();
    expect(clientCountry(request({ "cf-connecting-ip": "192.0.2.9" }, "US").req, 9_000_001)).toBeNull();
  });
});
