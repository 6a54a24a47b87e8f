import { validate } from "mppx/discovery";
import { describe, expect, it } from "vitest";
import { BASE, workerFetch } from "./support.js";

describe("discovery of the MCP endpoints", () => {
  it("/llms.txt tells an agent how to reach and pay the MCP server", async () => {
    const text = await (await workerFetch(`${BASE}/llms.txt`)).text();
    expect(text).toContain("## MCP");
    expect(text).toContain(`[${BASE}/mcp](${BASE}/mcp)`);
    expect(text).toContain("-32042");
    expect(text).toContain('params._meta["org.paymentauth/credential"]');
    expect(text).toContain(`[${BASE}/v1/mcp](${BASE}/v1/mcp)`);
  });

  it("/openapi.json names both MCP servers and stays a valid MPP discovery document", async () => {
    const doc = await (await workerFetch(`${BASE}/openapi.json`)).json<any>();
    expect(doc["x-mcp"]).toMatchObject({
      transport: "streamable-http",
      protocolVersion: "2025-11-25",
      servers: [{ url: `${BASE}/mcp` }, { url: `${BASE}/v1/mcp` }],
    });
    expect(validate(doc).filter((e) => e.severity === "error")).toEqual([]);
  });

  it("the root index lists both endpoints", async () => {
    const index = await (await workerFetch(`${BASE}/`)).json<any>();
    expect(index.mcp).toEqual({ account: "/v1/mcp (same credentials as /v1)", agent: "/mcp (paid per call with MPP)" });
  });
});
