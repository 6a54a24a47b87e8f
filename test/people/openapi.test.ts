import { describe, expect, it } from "vitest";
import { call, json } from "../support/accounts.js";

describe("OpenAPI document", () => {
  it("documents the people, company and phone endpoints, with legacy aliases left out", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    for (const path of [
      "/phone-validator",
      "/phone-finder",
      "/phone/{email}",
      "/enrich",
      "/people/find",
      "/companies/find",
      "/combined/find",
      "/professional-network",
      "/similar",
      "/location",
      "/technology",
      "/domain-suggestions",
    ]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
    expect(doc.paths["/reveal/search"].post).toBeDefined();
    expect(doc.paths["/linkedin"]).toBeUndefined();
    expect(doc.paths["/domains-suggestion"]).toBeUndefined();
  });
});

describe("OpenAPI tags (the groups of the /docs reference)", () => {
  const tagsOf = (doc: { paths: Record<string, Record<string, { tags?: string[] }>> }) =>
    new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])));
  // "Finder" and "Finders" would be two groups in the reference for one family of endpoints.
  const family = (tag: string) => tag.toLowerCase().replace(/e?s$/, "");

  it.each(["/v1/openapi.json", "/openapi.json"])(
    "%s has one tag per group: no two tags differ only by case or a plural",
    async (path) => {
      const tags = [...tagsOf(await json(await call(path)))];
      const families = new Map<string, string[]>();
      for (const tag of tags) families.set(family(tag), [...(families.get(family(tag)) ?? []), tag]);
      expect([...families.values()].filter((group) => group.length > 1)).toEqual([]);
    },
  );

  it("files the profile finder with the other finders", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    expect(doc.paths["/professional-network"].get.tags).toEqual(doc.paths["/email-finder"].get.tags);
  });
});
