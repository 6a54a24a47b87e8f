import { describe, expect, it } from "vitest";
import { call, json } from "../support/accounts.js";

describe("OpenAPI document", () => {
  it("documents the people, company and phone endpoints, with legacy aliases left out", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    for (const path of [
      "/phone-validator", "/phone-finder", "/phone/{email}", "/enrich", "/people/find", "/companies/find", "/combined/find",
      "/professional-network", "/similar", "/location", "/technology", "/domain-suggestions",
    ]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
    expect(doc.paths["/reveal/search"].post).toBeDefined();
    expect(doc.paths["/linkedin"]).toBeUndefined();
    expect(doc.paths["/domains-suggestion"]).toBeUndefined();
  });
});
