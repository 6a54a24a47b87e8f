import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { createApp } from "../../src/app.js";
import type { McpRouteOptions } from "../../src/mcp/routes.js";

export const BASE = "https://api.test";

/** The Worker itself, in-process, as the fetch an MCP client sends its HTTP requests through. */
export const workerFetch: typeof fetch = (input, init) =>
  exports.default.fetch(new Request(input instanceof Request ? input : String(input), init));

/** The official SDK client over Streamable HTTP to `path`, connected (initialize + initialized). */
export async function connect(
  path: string,
  opts: Omit<StreamableHTTPClientTransportOptions, "fetch"> & { fetch?: typeof fetch } = {},
) {
  const transport = new StreamableHTTPClientTransport(new URL(path, BASE), { fetch: workerFetch, ...opts });
  // workerd forbids the code generation of the SDK's default validator (ajv).
  const client = new Client(
    { name: "test-client", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(transport);
  return { client, transport };
}

/** One raw JSON-RPC POST, for what the SDK client would never send. */
export function rpc(path: string, body: unknown, headers: Record<string, string> = {}) {
  return workerFetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A whole app in-process with its own MCP options (capabilities, payment gate), as a fetch. */
export function appFetch(mcp: McpRouteOptions): typeof fetch {
  const app = createApp({ mcp });
  return async (input, init) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(input instanceof Request ? input : String(input), init), env, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
}
