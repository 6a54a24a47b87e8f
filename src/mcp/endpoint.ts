import type { CallToolResult, GetPromptResult, Prompt, Resource, Tool } from "@modelcontextprotocol/sdk/types.js";
import { soldCapabilities } from "../agent/discovery.js";
import type { AnyCapability } from "../capabilities/core/registry.js";
import { errorBody } from "../http/errors.js";
import { perBinding } from "../platform/isolate-state.js";
import { logError } from "../request-context.js";
import { listPrompts, MissingPromptArguments, renderPrompt } from "./prompts.js";
import { errorResult, type McpSurface, ToolCatalogue } from "./tools.js";

/**
 * What an MCP endpoint serves, in plain data: the SDK-facing server (server.ts, loaded on the
 * first MCP request) turns it into protocol messages. Everything here works without the SDK, so
 * only server.ts and the SDK sit behind the dynamic import; the executor, the payment gate and the
 * rest of the Worker are not pulled into the lazily loaded part of the bundle.
 */

/** A JSON-RPC error the tool call must fail with (MPP over MCP: -32042, -32043, -32602, -32603). */
export interface ProtocolError {
  code: number;
  message: string;
  data?: unknown;
}

export type ToolOutcome = { result: CallToolResult } | { protocolError: ProtocolError };

export interface McpResource {
  resource: Resource;
  /** The resource's text (JSON), or why it could not be read. */
  read(): Promise<{ text: string } | { problem: string }>;
}

/** What one surface (account API or agent surface) plugs into the common server. */
export interface McpEndpoint {
  surface: McpSurface;
  tools: Tool[];
  instructions: string;
  /** Undefined for a tool this endpoint does not serve. Never throws: failures are `isError` results. */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    meta: Record<string, unknown> | undefined,
  ): Promise<ToolOutcome | undefined>;
  resources: McpResource[];
  prompts: Prompt[];
  /** Undefined for an unknown prompt; a problem for missing arguments. */
  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
  ): { prompt: GetPromptResult } | { problem: string } | undefined;
}

/** How a surface runs one of its tools. */
export type RunTool = (
  cap: AnyCapability,
  args: Record<string, unknown> | undefined,
  meta: Record<string, unknown> | undefined,
) => Promise<ToolOutcome>;

/** Tool catalogues per capability list and surface, built once per isolate (schemas are converted once). */
const catalogues = perBinding<readonly AnyCapability[], Map<McpSurface, ToolCatalogue>>("mcpCatalogues");

/** The account API serves every capability; the agent surface sells those with an agent path and a price. */
export function catalogueFor(capabilities: readonly AnyCapability[], surface: McpSurface): ToolCatalogue {
  let bySurface = catalogues.get(capabilities);
  if (!bySurface) {
    bySurface = new Map();
    catalogues.set(capabilities, bySurface);
  }
  let catalogue = bySurface.get(surface);
  if (!catalogue) {
    catalogue = new ToolCatalogue(surface === "agent" ? soldCapabilities(capabilities) : capabilities, surface);
    bySurface.set(surface, catalogue);
  }
  return catalogue;
}

/** The endpoint of a surface: its catalogue's tools, run by `run`, with the workflows as prompts. */
export function endpointOf(
  catalogue: ToolCatalogue,
  parts: { instructions: string; resources: McpResource[]; run: RunTool },
): McpEndpoint {
  const served = new Set(catalogue.byName.keys());
  return {
    surface: catalogue.surface,
    tools: catalogue.tools,
    instructions: parts.instructions,
    resources: parts.resources,
    async callTool(name, args, meta) {
      const cap = catalogue.byName.get(name);
      if (!cap) return undefined;
      try {
        return await parts.run(cap, args, meta);
      } catch (err) {
        // Our fault, whatever it was: the service's server_error, logged, never a stack.
        logError("MCP tool call failed", name, err);
        return {
          result: errorResult(
            errorBody(500, "server_error", "Something went wrong on our side. The error was logged.").errors,
          ),
        };
      }
    },
    prompts: listPrompts(),
    getPrompt(name, args) {
      try {
        const prompt = renderPrompt(name, args, served, catalogue.surface);
        return prompt && { prompt };
      } catch (err) {
        if (err instanceof MissingPromptArguments) return { problem: err.message };
        throw err;
      }
    },
  };
}

/** A resource whose text is the JSON answer of one of our own GET endpoints. */
export function jsonResource(resource: Omit<Resource, "mimeType">, fetchJson: () => Promise<Response>): McpResource {
  return {
    resource: { ...resource, mimeType: "application/json" },
    async read() {
      const res = await fetchJson();
      const text = await res.text();
      if (res.status === 200) return { text };
      try {
        const message = (JSON.parse(text) as { errors?: { message?: string } }).errors?.message;
        if (message) return { problem: message };
      } catch {}
      return { problem: `${resource.uri} could not be read (HTTP ${res.status}).` };
    },
  };
}

/** The two OpenAPI documents, served by both MCP endpoints through the Worker's own routes. */
export function openApiResources(get: (path: string) => () => Promise<Response>): McpResource[] {
  return [
    jsonResource(
      {
        uri: "contact-intelligence://openapi/account",
        name: "openapi-account",
        title: "OpenAPI: account API",
        description:
          "The OpenAPI 3.1 document of the account API /v1, for holders of an account (GET /v1/openapi.json)",
      },
      get("/v1/openapi.json"),
    ),
    jsonResource(
      {
        uri: "contact-intelligence://openapi/agent",
        name: "openapi-agent",
        title: "OpenAPI: agent surface",
        description:
          "The OpenAPI 3.1 document of the pay-per-request HTTP endpoints, with x-payment-info (GET /openapi.json)",
      },
      get("/openapi.json"),
    ),
  ];
}

/** A resource built here (no request to make). */
export function documentResource(resource: Omit<Resource, "mimeType">, document: () => unknown): McpResource {
  return {
    resource: { ...resource, mimeType: "application/json" },
    read: async () => ({ text: JSON.stringify(document()) }),
  };
}
