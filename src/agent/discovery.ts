import { z } from "@hono/zod-openapi";
import type { Capability } from "../capabilities/core/registry.js";
import { ERROR_CODES } from "../http/errors.js";
import { MCP_PATHS, MCP_PROTOCOL_REVISION } from "../http/mcp-paths.js";
import { FORWARDED_HEADERS } from "./forwarded-headers.js";
import { priceFor, toBaseUnits } from "./prices.js";
import type { PaymentProvider } from "./provider.js";

/** Capabilities sold on the agent surface: an agentPath and a price. */
export function soldCapabilities(capabilities: readonly Capability[]): SoldCapability[] {
  return capabilities.filter((c): c is SoldCapability => Boolean(c.agentPath && priceFor(c.agentPath)));
}

/** A capability agents can buy: it has an agent path, and that path a price. */
export type SoldCapability = Capability & { agentPath: string };

function priceOf(cap: SoldCapability): string {
  const price = priceFor(cap.agentPath);
  if (price === undefined) throw new Error(`${cap.agentPath} is sold but has no price.`);
  return price;
}

const TAG = "Contact intelligence";

function offers(cap: SoldCapability, provider: PaymentProvider | null) {
  const price = priceOf(cap);
  const currencies = provider?.currencies ?? [
    { symbol: "USDC", address: "USDC", decimals: 6 },
    { symbol: "USDT", address: "USDT", decimals: 6 },
  ];
  return currencies.map((c) => ({
    intent: "charge",
    ...(provider ? { method: provider.method } : {}),
    amount: toBaseUnits(price, c.decimals),
    currency: c.address,
    description: `${price} ${c.symbol}${provider?.label ? ` (${provider.label})` : ""}`,
  }));
}

function jsonSchemaOf(schema: z.ZodType | undefined): unknown {
  if (!schema) return { type: "object" };
  try {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Record<
      string,
      unknown
    >;
    return rest;
  } catch {
    return { type: "object" };
  }
}

function queryParameters(cap: Capability) {
  const shape = cap.params.shape as Record<string, z.ZodType>;
  return Object.entries(shape).map(([name, field]) => {
    const description = (field as { description?: string }).description ?? z.globalRegistry.get(field)?.description;
    // Spec: every agent-surface parameter is a string, optional at the interface; missing data is a 422.
    return { name, in: "query", required: false, schema: { type: "string" }, ...(description ? { description } : {}) };
  });
}

const rateLimitHeaders = Object.fromEntries(
  FORWARDED_HEADERS.map((h) => [
    h,
    { schema: { type: "string" }, description: "Forwarded from the shared agents account" },
  ]),
);
const error = (description: string, extra: Record<string, unknown> = {}) => ({
  description,
  ...extra,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});
const charged = { "X-Payment-Charged": { schema: { type: "string", enum: ["true", "false"] } } };

export function agentOpenApiDocument(
  capabilities: readonly Capability[],
  provider: PaymentProvider | null,
  origin: string,
) {
  const paths: Record<string, unknown> = {};
  for (const cap of soldCapabilities(capabilities)) {
    paths[cap.agentPath] = {
      get: {
        operationId: cap.name,
        summary: cap.summary,
        tags: [TAG],
        security: [{ mpp: [] }],
        parameters: queryParameters(cap),
        "x-payment-info": { offers: offers(cap, provider) },
        responses: {
          200: {
            description: `Paid and fulfilled: ${cap.label}`,
            headers: {
              "Payment-Receipt": { schema: { type: "string" }, description: "Serialized MPP receipt" },
              ...charged,
              ...rateLimitHeaders,
            },
            content: { "application/json": { schema: jsonSchemaOf(cap.response) } },
          },
          402: {
            description: "Payment required: one WWW-Authenticate Payment challenge per currency (USDC, USDT); pick one",
            headers: { "WWW-Authenticate": { schema: { type: "string" } } },
            content: { "application/problem+json": { schema: { $ref: "#/components/schemas/PaymentRequired" } } },
          },
          422: error(
            "Upstream rejected the request (e.g. missing parameters); not billed, the credential stays spendable",
            { headers: charged },
          ),
          429: error("Upstream rate limit reached; not billed, the credential stays spendable", {
            headers: { ...charged, "Retry-After": { schema: { type: "integer" } } },
          }),
          502: error(
            "Payment provider unreachable or credential could not be validated (never a request to pay again)",
          ),
          503: error("Payment gate unavailable", { headers: { "Retry-After": { schema: { type: "integer" } } } }),
        },
      },
    };
  }
  paths["/agent-enrollments"] = {
    post: {
      operationId: "enroll-agent",
      summary: "Register an agent identity (free, optional; grants nothing)",
      tags: ["Enrollment"],
      requestBody: {
        required: true,
        content: { "application/json": { schema: { $ref: "#/components/schemas/EnrollmentRequest" } } },
      },
      responses: {
        201: {
          description: "Enrolled",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Enrollment" } } },
        },
        400: error("Invalid enrollment"),
      },
    },
  };
  paths["/agent-enrollments/{id}"] = {
    get: {
      operationId: "get-agent-enrollment",
      summary: "Read an enrolled agent identity back (free)",
      tags: ["Enrollment"],
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: {
        200: {
          description: "Enrollment",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Enrollment" } } },
        },
        404: error("Unknown enrollment"),
      },
    },
  };

  return {
    openapi: "3.1.0",
    info: {
      title: "Contact Intelligence agent API",
      version: "1.0.0",
      description:
        "B2B contact intelligence paid per request with the Machine Payments Protocol (MPP). No key: an unpaid request answers 402 with one Payment challenge per currency (USDC, USDT); pay one and resend with `Authorization: Payment <credential>`. You are charged only for a 200.",
    },
    servers: [{ url: origin }],
    "x-service-info": {
      categories: ["data", "b2b", "contacts", "email", "enrichment"],
      docs: { homepage: `${origin}/`, apiReference: `${origin}/openapi.json`, llms: `${origin}/llms.txt` },
    },
    // The same capabilities as MCP tools (Streamable HTTP), paid per call with MPP over MCP.
    "x-mcp": mcpServers(origin),
    tags: [
      { name: TAG, description: "Paid per request (MPP)" },
      { name: "Enrollment", description: "Free, optional, grants nothing" },
    ],
    paths,
    components: {
      securitySchemes: {
        mpp: {
          type: "http",
          scheme: "Payment",
          description: "Machine Payments Protocol credential (Authorization: Payment ...)",
        },
      },
      schemas: {
        PaymentRequired: {
          type: "object",
          description: "RFC 9457 problem details",
          properties: {
            type: { type: "string" },
            title: { type: "string" },
            status: { type: "integer" },
            detail: { type: "string" },
            hint: { type: "string" },
            request_id: { type: "string", description: "The response's X-Request-Id" },
          },
          required: ["type", "title", "status", "detail"],
        },
        Error: {
          type: "object",
          properties: {
            errors: {
              type: "object",
              properties: {
                type: {
                  type: "string",
                  enum: ERROR_CODES,
                  description: "One of a closed set; each type has a fixed status",
                },
                message: { type: "string" },
                code: { type: "integer" },
                request_id: {
                  type: "string",
                  description: "The response's X-Request-Id; quote it when reporting a problem",
                },
              },
              required: ["type", "message", "code"],
            },
          },
          required: ["errors"],
        },
        EnrollmentRequest: {
          type: "object",
          properties: {
            name: { type: "string" },
            contact: { type: "string", description: "Email address or https URL" },
            public_key: { type: "string" },
            did: { type: "string", description: "did:method:identifier" },
          },
          required: ["name", "contact"],
        },
        Enrollment: {
          type: "object",
          properties: {
            id: { type: "string" },
            name: { type: "string" },
            contact: { type: "string" },
            public_key: { type: ["string", "null"] },
            did: { type: ["string", "null"] },
            created_at: { type: "string", format: "date-time" },
            grants: { type: "array", items: { type: "string" }, maxItems: 0 },
          },
        },
      },
    },
  };
}

/** The MCP endpoints, as the discovery documents list them. */
export function mcpServers(origin: string) {
  return {
    transport: "streamable-http",
    protocolVersion: MCP_PROTOCOL_REVISION,
    servers: [
      {
        url: `${origin}${MCP_PATHS.agent}`,
        auth: "none: each tool call is paid with MPP over MCP (JSON-RPC error -32042 carries the challenges)",
      },
      {
        url: `${origin}${MCP_PATHS.account}`,
        auth: "OAuth 2.0 bearer (metadata at /.well-known/oauth-protected-resource) or X-Service-Key + X-Service-Secret; billed to the account's credits",
      },
    ],
  };
}

export function llmsTxt(capabilities: readonly Capability[], provider: PaymentProvider | null, origin: string): string {
  const method = provider
    ? `\`${provider.method}\`${provider.label ? ` (${provider.label})` : ""}`
    : "(payment gate currently unavailable)";
  const lines = [
    "# Contact Intelligence agent API",
    "",
    "> B2B contact intelligence (find and verify emails, phones, people and company data) paid per request with the Machine Payments Protocol (MPP). No API key, no sign-up: payment is the credential.",
    "",
    "## How to pay",
    "",
    "1. Call an endpoint below with GET and query parameters only.",
    "2. Unpaid, it answers `402` with one `WWW-Authenticate: Payment ...` challenge per currency (USDC and USDT) and a problem+json body. Pick one challenge.",
    `3. Pay it with an MPP client (e.g. \`mppx\`: \`Mppx.create({ methods: [...] }).fetch(url)\`); payment method here: ${method}.`,
    "4. Resend the same request with `Authorization: Payment <credential>`.",
    "5. `200`: you were charged once; the answer carries `Payment-Receipt` and `X-Payment-Charged: true` plus rate-limit headers.",
    "   `422` (bad or missing parameters) or `429` (rate limit, see `Retry-After`): not charged (`X-Payment-Charged: false`); the same credential stays spendable.",
    "   `502`: the payment provider could not be reached; `503`: the payment gate is unavailable (see `Retry-After`). Neither means you must pay again.",
    "   A credential pays for one answer only; after a 200 it is spent.",
    "",
    `Machine-readable description: ${origin}/openapi.json (OpenAPI 3.1 with x-payment-info).`,
    "",
    "## Endpoints",
    "",
  ];
  for (const cap of soldCapabilities(capabilities)) {
    const params = Object.keys(cap.params.shape)
      .map((p) => `\`${p}\``)
      .join(", ");
    lines.push(
      `- [GET ${cap.agentPath}](${origin}${cap.agentPath}): ${cap.summary}. Price ${priceOf(cap)} USD (USDC or USDT). Query: ${params || "none"}.`,
    );
  }
  lines.push(
    "",
    "## MCP",
    "",
    `- [${origin}${MCP_PATHS.agent}](${origin}${MCP_PATHS.agent}): the endpoints above as Model Context Protocol tools (Streamable HTTP, stateless, protocol ${MCP_PROTOCOL_REVISION}), same prices. An unpaid \`tools/call\` fails with JSON-RPC error \`-32042\` whose \`data.challenges\` are the Payment challenges; pay one and repeat the call with the credential in \`params._meta["org.paymentauth/credential"]\` (mppx: \`McpClient.wrap(client, { methods })\`). The receipt comes back in \`result._meta["org.paymentauth/receipt"]\`; errors are \`isError\` results and are not charged.`,
    `- [${origin}${MCP_PATHS.account}](${origin}${MCP_PATHS.account}): the same tools (and a few more) for account holders, billed to the account's credits: OAuth 2.0 (an unauthenticated call answers 401 pointing at ${origin}/.well-known/oauth-protected-resource) or X-Service-Key + X-Service-Secret headers.`,
    "",
    "## Optional",
    "",
    `- [POST /agent-enrollments](${origin}/agent-enrollments): register a name, a contact and a public key or DID (JSON body). Free; it unlocks nothing and paid endpoints behave the same either way.`,
    `- [GET /agent-enrollments/{id}](${origin}/agent-enrollments/{id}): read an enrollment back.`,
    "",
  );
  return lines.join("\n");
}
