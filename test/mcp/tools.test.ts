import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { defineCapability } from "../../src/capabilities/core/registry.js";
import { CAPABILITIES } from "../../src/capabilities/index.js";
import { limiterFor } from "../../src/limits/admission.js";
import { inputSchemaOf, toolName } from "../../src/mcp/tools.js";
import { createAccount } from "../support/accounts.js";
import { settle } from "../support/settle.js";
import { appFetch, connect } from "./support.js";

/** A capability that exists only in this test: added to the list, it must be served with no other change. */
const weatherAtDomain = defineCapability({
  name: "domain-weather",
  label: "Domain Weather",
  summary: "The weather at a company's headquarters (test only)",
  tag: "Test",
  paths: ["/domain-weather"],
  params: z.object({
    domain: z.string().min(1).openapi({ description: "Company domain", example: "acme.com" }),
    celsius: z
      .enum(["true", "false"])
      .transform((v) => v === "true")
      .optional(),
  }),
  rateGroup: null,
  cost: { balance: "search", amount: 1 },
  usageCategory: "search",
  response: z.object({ data: z.object({ domain: z.string(), sky: z.string() }) }),
  handler: async (params) => ({ body: { data: { domain: params.domain, sky: "clear" } }, found: true }),
});

describe("the tools of /v1/mcp", () => {
  it("are the capability registry: one tool per capability, in its order, named after it", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(CAPABILITIES.length);
    expect(tools.map((t) => t.name)).toEqual(CAPABILITIES.map(toolName));
    expect(tools.map((t) => t.title)).toEqual(CAPABILITIES.map((c) => c.label));
    expect(tools.map((t) => t.inputSchema)).toEqual(CAPABILITIES.map(inputSchemaOf));
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    for (const tool of tools) expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
    expect(tools.map((t) => t.name)).toContain("people-find");
  });

  it("take their input schema from the zod parameters: descriptions, examples, limits, JSON booleans, nothing else", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const { tools } = await client.listTools();
    const finder = tools.find((t) => t.name === "email-finder")!;
    expect(finder.inputSchema).toMatchObject({
      type: "object",
      additionalProperties: false,
      properties: {
        domain: {
          type: "string",
          maxLength: 255,
          description: "Company website domain (a URL is accepted)",
          examples: ["acme.com"],
        },
        enrich_mobile: { type: "boolean", description: expect.stringContaining("phone credit") },
      },
    });
    expect(tools.find((t) => t.name === "email-verifier")!.inputSchema.required).toEqual(["email"]);
    expect(tools.find((t) => t.name === "similar")!.inputSchema.properties!.limit).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 10,
    });
  });

  it("take their output schema from the response schema, open to extra fields", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const { tools } = await client.listTools();
    for (const tool of tools) expect(tool.outputSchema, tool.name).toMatchObject({ type: "object" });
    const finder = tools.find((t) => t.name === "email-finder")!;
    expect(finder.outputSchema).toMatchObject({
      required: ["data"],
      properties: { data: { properties: { email: { type: ["string", "null"] }, score: expect.any(Object) } } },
    });
    expect(JSON.stringify(tools.map((t) => t.outputSchema))).not.toContain('"additionalProperties":false');
  });

  it("say what they do, when to use them and what they cost, with read-only and open-world hints", async () => {
    const a = await createAccount();
    const { client } = await connect("/v1/mcp", { requestInit: { headers: a.headers } });
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName["email-finder"]!.description).toMatch(
      /^The most likely address of a person .*Use it to get one named person's work address.*Needs one of: domain \+ first_name \+ last_name; .*Uses 1 search credit when it finds something/,
    );
    expect(byName["domain-status"]!.description).toMatch(/Free \(no credits\)\.$/);
    for (const tool of tools)
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        title: tool.title,
      });
    expect(byName["phone-validator"]!.annotations!.openWorldHint).toBe(false);
    expect(byName["email-verifier"]!.annotations!.openWorldHint).toBe(true);
  });
});

describe("a capability added to the registry", () => {
  it("is a tool of /v1/mcp with its schemas, and a call runs and bills it like its /v1 endpoint", async () => {
    const a = await createAccount();
    const fetch = appFetch({ capabilities: [...CAPABILITIES, weatherAtDomain] });
    const { client } = await connect("/v1/mcp", { fetch, requestInit: { headers: a.headers } });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...CAPABILITIES.map(toolName), "domain-weather"]);
    const tool = tools.at(-1)!;
    expect(tool).toMatchObject({
      title: "Domain Weather",
      description:
        "The weather at a company's headquarters (test only). Uses 1 search credit when it finds something; nothing found, an error, or the same request again within 30 days is free.",
      inputSchema: {
        properties: {
          domain: { type: "string", description: "Company domain" },
          celsius: { type: "string", enum: ["true", "false"] },
        },
        required: ["domain"],
      },
      outputSchema: { properties: { data: { properties: { sky: { type: "string" } } } } },
      annotations: { openWorldHint: true },
    });
    const result = await client.callTool({ name: "domain-weather", arguments: { domain: "acme.test" } });
    expect(result.structuredContent).toEqual({ data: { domain: "acme.test", sky: "clear" } });
    await settle(async () => (await limiterFor(env, a.accountId).balances("pro")).search.used === 1);
  });

  it("is not sold on /mcp until it has an agent path and a price", async () => {
    const { client } = await connect("/mcp", { fetch: appFetch({ capabilities: [...CAPABILITIES, weatherAtDomain] }) });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).not.toContain("domain-weather");
    expect(tools.map((t) => t.name)).toContain("email-finder");
  });
});
