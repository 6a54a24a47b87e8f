import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { McpEndpoint } from "./endpoint.js";

/**
 * The part of /mcp and /v1/mcp that needs the MCP SDK, loaded on the first MCP request
 * (src/mcp/routes.ts imports it dynamically) and importing nothing else of the Worker at run time.
 *
 * One server per request over the SDK's web-standard Streamable HTTP transport, stateless (no
 * session id: any isolate answers any request) and answering JSON rather than an event stream.
 * The low-level `Server` is used rather than `McpServer`: the tools are JSON Schema declarations
 * generated from the registry, and `McpServer` would turn the payment errors (-32042 payment
 * required, -32043 verification failed) into `isError` results instead of JSON-RPC errors.
 */

export const SERVER_INFO = { name: "contact-intelligence", title: "Contact Intelligence", version: "1.0.0" };

/** The MCP specification's code for an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * The SDK's `Server` validates JSON Schema only for elicitation (checking what a client answers to
 * a question the server asked), and this server asks nothing: tool arguments are validated by the
 * capabilities' zod schemas. So it gets a validator that refuses, instead of the default ajv (which
 * compiles with `new Function`, forbidden in workerd; wrangler.toml aliases it away) or a bundled
 * @cfworker/json-schema that nothing would call.
 */
const noElicitation: jsonSchemaValidator = {
  getValidator() {
    throw new Error("This MCP server does not elicit input, so it validates no JSON Schema.");
  },
};

function buildServer(endpoint: McpEndpoint): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
    instructions: endpoint.instructions,
    jsonSchemaValidator: noElicitation,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: endpoint.tools }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const outcome = await endpoint.callTool(params.name, params.arguments, params._meta);
    if (!outcome)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${params.name}. tools/list names the tools this server offers.`,
      );
    if ("protocolError" in outcome)
      throw new McpError(outcome.protocolError.code, outcome.protocolError.message, outcome.protocolError.data);
    return outcome.result;
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: endpoint.resources.map((r) => r.resource),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => {
    const found = endpoint.resources.find((r) => r.resource.uri === params.uri);
    if (!found)
      throw new McpError(
        RESOURCE_NOT_FOUND,
        `Resource not found: ${params.uri}. resources/list names the resources this server offers.`,
      );
    const read = await found.read();
    if ("problem" in read) throw new McpError(ErrorCode.InternalError, read.problem);
    return { contents: [{ uri: found.resource.uri, mimeType: found.resource.mimeType, text: read.text }] };
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: endpoint.prompts }));
  server.setRequestHandler(GetPromptRequestSchema, ({ params }) => {
    const found = endpoint.getPrompt(params.name, params.arguments);
    if (!found)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown prompt: ${params.name}. prompts/list names the prompts this server offers.`,
      );
    if ("problem" in found) throw new McpError(ErrorCode.InvalidParams, found.problem);
    return found.prompt;
  });
  return server;
}

/** Answers one HTTP request (one JSON-RPC message, or a batch) with a fresh server and transport. */
export async function handleMcpRequest(request: Request, endpoint: McpEndpoint): Promise<Response> {
  const server = buildServer(endpoint);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
