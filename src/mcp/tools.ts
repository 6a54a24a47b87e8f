import { getOpenApiMetadata } from "@asteasolutions/zod-to-openapi";
import { z } from "@hono/zod-openapi";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { priceFor } from "../agent/prices.js";
import type { AnyCapability } from "../capabilities/core/registry.js";
import { type ErrorBody, errorBody } from "../http/errors.js";
import { perBinding } from "../platform/isolate-state.js";
import { TOOL_GUIDANCE } from "./guidance.js";

/**
 * One MCP tool per capability, generated from its declaration: the input schema from its zod
 * parameters, the output schema from its zod response, the description from its summary plus the
 * guidance in guidance.ts and what a call costs on the surface that serves it. Nothing here is
 * per-capability code: a capability added to the registry is a tool on the next request.
 */

/** Which MCP endpoint: /v1/mcp bills the account's credits, /mcp is paid per call with MPP. */
export type McpSurface = "account" | "agent";

type JsonSchema = Record<string, unknown>;

/** MCP tool names allow letters, digits, `_`, `-` and `.`: "people/find" is served as "people-find". */
export function toolName(cap: Pick<AnyCapability, "name">): string {
  return cap.name.replace(/[^A-Za-z0-9_.-]/g, "-");
}

/**
 * The capability parameters arrive as a query string on /v1; a `queryBool()` parameter is the text
 * "true"/"false"/"1"/"0". Over MCP the same parameter is a JSON boolean (the call converts it back).
 */
const QUERY_BOOL = ["0", "1", "false", "true"].join();
const isQueryBool = (s: JsonSchema) => Array.isArray(s.enum) && [...(s.enum as string[])].sort().join() === QUERY_BOOL;

/** Descriptions and examples live in the OpenAPI metadata (`.openapi({...})`); JSON Schema gets them too. */
function withOpenApiMetadata(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }) {
  const meta = getOpenApiMetadata(ctx.zodSchema as z.ZodType) as
    | { description?: string; example?: unknown }
    | undefined;
  if (meta?.description && !ctx.jsonSchema.description) ctx.jsonSchema.description = meta.description;
  if (meta?.example !== undefined && !ctx.jsonSchema.examples) ctx.jsonSchema.examples = [meta.example];
}

function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    override: withOpenApiMetadata,
  }) as JsonSchema;
  return rest;
}

/** The parameters as JSON Schema, with query-string booleans as JSON booleans and nothing else accepted. */
export function inputSchemaOf(cap: AnyCapability): Tool["inputSchema"] {
  const schema = toJsonSchema(cap.params, "input");
  const properties = Object.fromEntries(
    Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([name, prop]) => {
      if (!isQueryBool(prop)) return [name, prop];
      const { enum: _text, type: _string, ...rest } = prop;
      return [name, { ...rest, type: "boolean" }];
    }),
  );
  return { ...schema, type: "object", properties, additionalProperties: false };
}

/**
 * The response schema as JSON Schema. Objects are left open (no `additionalProperties: false`):
 * answers may carry fields the schema does not list (the contract sends unions of documented
 * shapes), and a client validating `structuredContent` must not reject a correct answer for that.
 */
export function outputSchemaOf(cap: AnyCapability): Tool["outputSchema"] | undefined {
  if (!cap.response) return undefined;
  const schema = openObjects(toJsonSchema(cap.response, "output")) as JsonSchema;
  return schema.type === "object" ? (schema as Tool["outputSchema"]) : undefined;
}

function openObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openObjects);
  if (!node || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node))
    if (!(k === "additionalProperties" && v === false)) out[k] = openObjects(v);
  return out;
}

function costLine(cap: AnyCapability, surface: McpSurface): string {
  if (surface === "agent") {
    const price = cap.agentPath ? priceFor(cap.agentPath) : undefined;
    return `Price: $${price} per answer, paid per call with the Machine Payments Protocol (USDC or USDT); an error is not charged.`;
  }
  if (!cap.cost) return "Free (no credits).";
  const unit = `${cap.cost.balance} credit${cap.cost.amount === 1 ? "" : "s"}`;
  return `Uses ${cap.cost.amount} ${unit} when it finds something; nothing found, an error, or the same request again within 30 days is free.`;
}

/** "Needs one of: domain + first_name + last_name; …", from the bulk declaration's parameter sets. */
function needsLine(cap: AnyCapability): string {
  const sets = cap.bulk?.requires;
  if (!sets || sets.length < 2) return "";
  return ` Needs one of: ${sets.map((s) => s.join(" + ")).join("; ")}.`;
}

export function describeTool(cap: AnyCapability, surface: McpSurface): string {
  const guidance = TOOL_GUIDANCE[cap.name];
  const summary = cap.summary.endsWith(".") ? cap.summary : `${cap.summary}.`;
  return `${summary}${guidance ? ` ${guidance.use}` : ""}${needsLine(cap)} ${costLine(cap, surface)}`;
}

const schemaCache = perBinding<AnyCapability, { input: Tool["inputSchema"]; output: Tool["outputSchema"] | undefined }>(
  "mcpToolSchemas",
);

function schemasOf(cap: AnyCapability) {
  let cached = schemaCache.get(cap);
  if (!cached) {
    cached = { input: inputSchemaOf(cap), output: outputSchemaOf(cap) };
    schemaCache.set(cap, cached);
  }
  return cached;
}

export function toolOf(cap: AnyCapability, surface: McpSurface): Tool {
  const { input, output } = schemasOf(cap);
  return {
    name: toolName(cap),
    title: cap.label,
    description: describeTool(cap, surface),
    inputSchema: input,
    ...(output ? { outputSchema: output } : {}),
    annotations: {
      title: cap.label,
      // Every capability is a lookup: it changes nothing the caller owns (credits aside).
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: TOOL_GUIDANCE[cap.name]?.openWorld ?? true,
    },
  };
}

/** The capabilities a surface serves, by tool name. */
export class ToolCatalogue {
  readonly byName = new Map<string, AnyCapability>();
  readonly tools: Tool[];

  constructor(
    capabilities: readonly AnyCapability[],
    readonly surface: McpSurface,
  ) {
    for (const cap of capabilities) {
      const name = toolName(cap);
      if (this.byName.has(name)) throw new Error(`Two capabilities would share the MCP tool name '${name}'.`);
      this.byName.set(name, cap);
    }
    this.tools = capabilities.map((cap) => toolOf(cap, surface));
  }
}

/**
 * The tool arguments as the query string a /v1 or agent call would carry, so the capability's own
 * schema validates them exactly as it validates an HTTP call. Unknown names are refused (a typo
 * must not be dropped silently); a JSON null is an absent parameter.
 */
export function queryOfArguments(
  cap: AnyCapability,
  args: Record<string, unknown> | undefined,
): { query: Record<string, string> } | { problem: string } {
  const known = Object.keys(cap.params.shape);
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(args ?? {})) {
    if (!known.includes(name)) {
      return {
        problem: `The parameter '${name}' is not a parameter of this tool. Its parameters: ${known.join(", ")}.`,
      };
    }
    if (value === null || value === undefined) continue;
    if (typeof value === "string") query[name] = value;
    else if (typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value)))
      query[name] = String(value);
    else
      return {
        problem: `The parameter '${name}' must be text, a number or true/false, not ${Array.isArray(value) ? "a list" : "an object"}.`,
      };
  }
  return { query };
}

/** A successful answer: the REST body as structured content, and a text version for text-only models. */
export function answerResult(cap: AnyCapability, body: unknown): CallToolResult {
  const structured =
    body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  return {
    content: [{ type: "text", text: `${summaryOf(cap, body)}\n${JSON.stringify(body)}` }],
    ...(structured ? { structuredContent: structured } : {}),
  };
}

/** `_meta` key of the service's error on an `isError` result (same fields as the REST error body). */
export const ERROR_META_KEY = "contact-intelligence/error";

/**
 * A failed call: `isError` with the service's error type, message and status code (never a stack),
 * in the text a model reads and in `_meta` for programs. A Retry-After is passed on.
 */
export function errorResult(error: ErrorBody["errors"], retryAfterSeconds?: number): CallToolResult {
  const retry = retryAfterSeconds !== undefined ? ` Retry after ${retryAfterSeconds} s.` : "";
  return {
    isError: true,
    content: [{ type: "text", text: `Error ${error.code} ${error.type}: ${error.message}${retry}` }],
    _meta: {
      [ERROR_META_KEY]: {
        ...error,
        ...(retryAfterSeconds !== undefined ? { retry_after_seconds: retryAfterSeconds } : {}),
      },
    },
  };
}

/** The error result for an executor or gate answer that is not a 200 (its body is the service's error body). */
export async function errorResultOf(response: Response): Promise<CallToolResult> {
  const retryAfter = Number(response.headers.get("retry-after") ?? NaN);
  let parsed: Partial<ErrorBody> | undefined;
  try {
    parsed = (await response.json()) as Partial<ErrorBody>;
  } catch {
    parsed = undefined;
  }
  const error =
    parsed?.errors?.type && parsed.errors.message
      ? parsed.errors
      : errorBody(500, "server_error", "Something went wrong on our side. The error was logged.").errors;
  return errorResult(error, Number.isFinite(retryAfter) ? retryAfter : undefined);
}

/** Fields that say most about an answer, shown first in the summary line when present. */
const SUMMARY_FIRST = [
  "email",
  "status",
  "result",
  "score",
  "full_name",
  "name",
  "position",
  "company",
  "domain",
  "e164_format",
  "total",
];

/** One line for a model that reads only text: what was found, in a few fields. */
function summaryOf(cap: AnyCapability, body: unknown): string {
  const data = (body as { data?: unknown } | null)?.data ?? body;
  if (Array.isArray(data))
    return `${cap.label}: ${data.length} result${data.length === 1 ? "" : "s"}. Full answer (JSON):`;
  if (!data || typeof data !== "object") return `${cap.label}: ${JSON.stringify(data)}. Full answer (JSON):`;
  const rank = (key: string) => (SUMMARY_FIRST.indexOf(key) + SUMMARY_FIRST.length + 1) % (SUMMARY_FIRST.length + 1);
  const fields = Object.entries(data)
    .filter(([, v]) => v !== null && v !== "" && (typeof v !== "object" || Array.isArray(v)))
    .sort(([a], [b]) => rank(a) - rank(b))
    .slice(0, 8)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? `${v.length} item${v.length === 1 ? "" : "s"}` : String(v)}`);
  return `${cap.label}: ${fields.join(", ") || "no fields"}. Full answer (JSON):`;
}
