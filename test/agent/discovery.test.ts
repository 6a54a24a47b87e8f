import { validate } from "mppx/discovery";
import { describe, expect, it } from "vitest";
import { DEV_TOKENS } from "../../src/agent/dev-chain.js";
import { AGENT_PRICES_USD, priceFor, toBaseUnits } from "../../src/agent/prices.js";
import { CAPABILITIES } from "../../src/capabilities/index.js";
import { BASE, workerFetch } from "./support.js";

const SPEC_PATHS = [
  "/domain-search",
  "/email-finder",
  "/email-verifier",
  "/email-count",
  "/email-sources",
  "/email-format",
  "/author-finder",
  "/enrich",
  "/professional-network",
  "/phone-finder",
  "/phone-validator",
  "/similar",
  "/location",
  "/people/find",
  "/companies/find",
  "/domain-status",
  "/domain-suggestions",
];

describe("prices", () => {
  it("price every spec endpoint in the one table", () => {
    expect(
      Object.keys(AGENT_PRICES_USD)
        .map((k) => `/${k}`)
        .sort(),
    ).toEqual([...SPEC_PATHS].sort());
  });

  it("price every capability that declares an agent path", () => {
    const unpriced = CAPABILITIES.filter((c) => c.agentPath && !priceFor(c.agentPath)).map((c) => c.agentPath);
    expect(unpriced).toEqual([]);
  });

  it("convert display prices to base units exactly", () => {
    expect(toBaseUnits("0.01")).toBe("10000");
    expect(toBaseUnits("0.005")).toBe("5000");
    expect(toBaseUnits("1")).toBe("1000000");
    expect(() => toBaseUnits("0.0000001")).toThrow();
  });
});

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 discovery document that mppx's validator accepts", async () => {
    const res = await workerFetch(`${BASE}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toMatch(/max-age=300/);
    const doc = await res.json<any>();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe("1.0.0");
    expect(doc["x-service-info"].docs.llms).toBe(`${BASE}/llms.txt`);
    expect(validate(doc).filter((e) => e.severity === "error")).toEqual([]);
  });

  it("offers both currencies with a declared 402 on every sold capability", async () => {
    const doc = await (await workerFetch(`${BASE}/openapi.json`)).json<any>();
    const sold = CAPABILITIES.filter((c) => c.agentPath && priceFor(c.agentPath));
    expect(sold.length).toBeGreaterThan(0);
    for (const cap of sold) {
      const op = doc.paths[cap.agentPath!].get;
      expect(op.responses["402"]).toBeDefined();
      const offers = op["x-payment-info"].offers;
      expect(offers.map((o: any) => o.currency.toLowerCase()).sort()).toEqual(
        [DEV_TOKENS.USDC, DEV_TOKENS.USDT].sort(),
      );
      expect(
        offers.every(
          (o: any) =>
            o.method === "evm" && o.intent === "charge" && o.amount === toBaseUnits(priceFor(cap.agentPath!)!),
        ),
      ).toBe(true);
      const params = op.parameters.map((p: any) => p.name);
      expect(params).toEqual(Object.keys(cap.params.shape));
      expect(op.parameters.every((p: any) => p.in === "query" && p.schema.type === "string")).toBe(true);
    }
    // Free routes carry no payment info.
    expect(doc.paths["/agent-enrollments"].post["x-payment-info"]).toBeUndefined();
  });
});

describe("GET /openapi.json response schemas", () => {
  it("wire contract §6.1: the verifier's data.email is the verdict object and data.sources an array, as on /v1", async () => {
    const doc = await (await workerFetch(`${BASE}/openapi.json`)).json<any>();
    const data = doc.paths["/email-verifier"].get.responses["200"].content["application/json"].schema.properties.data;
    expect(data.properties.email.type).toBe("object");
    expect(data.properties.email.properties.status.enum).toContain("accept_all");
    expect(data.properties.email.properties.mx_check.type).toBe("boolean");
    expect(data.properties.sources.type).toBe("array");
  });
});

describe("GET /llms.txt", () => {
  it("tells an agent how to pay and lists what each endpoint returns", async () => {
    const res = await workerFetch(`${BASE}/llms.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/WWW-Authenticate: Payment/);
    expect(text).toMatch(/Authorization: Payment/);
    for (const cap of CAPABILITIES.filter((c) => c.agentPath && priceFor(c.agentPath))) {
      expect(text).toContain(`GET ${cap.agentPath}`);
    }
  });
});
