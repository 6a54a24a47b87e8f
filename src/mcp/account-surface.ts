import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { buildLogRow } from "../account/request-log.js";
import type { AuthContext } from "../auth/auth-context.js";
import { executeCapability } from "../capabilities/core/execute.js";
import type { AnyCapability } from "../capabilities/core/registry.js";
import { errorBody, errorResponse } from "../http/errors.js";
import type { Ctx } from "../http/openapi.js";
import { describeIssue } from "../http/validation.js";
import { type BillingDecision, NOT_BILLED } from "../limits/billing-decision.js";
import { loggedUri } from "../platform/log-uri.js";
import { enqueueLogRow } from "../platform/request-log-queue.js";
import { currentLogRowId, logError } from "../request-context.js";
import { CATALOGUE_URI, catalogueDocument } from "./catalogue.js";
import {
  catalogueFor,
  documentResource,
  endpointOf,
  jsonResource,
  type McpEndpoint,
  openApiResources,
} from "./endpoint.js";
import { answerResult, errorResult, errorResultOf, queryOfArguments, toolName } from "./tools.js";

/** Fetches one of our own endpoints in-process (the whole app: middleware, auth and logs as usual). */
export type SelfFetch = (request: Request) => Promise<Response>;

const CREDENTIAL_HEADERS = ["x-service-key", "x-service-secret", "authorization"];

const INSTRUCTIONS =
  "Contact Intelligence: find and verify work email addresses, find and validate phone numbers, and enrich people and companies. " +
  "Each tool is one /v1 endpoint of the account API and is billed to your account exactly as that endpoint is: credits are spent only when something is found, " +
  "a repeat of the same request within 30 days is free, and your plan's rate limits apply. Read the contact-intelligence://account/usage and " +
  "contact-intelligence://account/rate-limits resources for what is left. Prefer domain-status and domain-suggestions (free) before paid lookups.";

/**
 * /v1/mcp for an authenticated account (auth is on the context): each tool call goes through the
 * same executor as its /v1 endpoint (credits, plan rate limits, the 30-day repeat rule) and leaves
 * one request-log row, as a /v1 call does.
 */
export function accountEndpoint(c: Ctx, capabilities: readonly AnyCapability[], self: SelfFetch): McpEndpoint {
  const catalogue = catalogueFor(capabilities, "account");
  const url = new URL(c.req.url);
  const credentials = new Headers();
  for (const name of CREDENTIAL_HEADERS) {
    const value = c.req.header(name);
    if (value !== undefined) credentials.set(name, value);
  }
  const get = (path: string) => () => self(new Request(new URL(path, url), { headers: credentials }));
  let calls = 0;
  return endpointOf(catalogue, {
    instructions: INSTRUCTIONS,
    run: async (cap, args) => ({ result: await callForAccount(c, cap, args, calls++) }),
    resources: [
      jsonResource(
        {
          uri: "contact-intelligence://account/usage",
          name: "usage",
          title: "Usage",
          description:
            "Charged requests per day over the last 30 days, in total, and the credit balances (GET /v1/usage)",
        },
        get("/v1/usage"),
      ),
      jsonResource(
        {
          uri: "contact-intelligence://account/rate-limits",
          name: "rate-limits",
          title: "Rate limits and credits",
          description:
            "The plan's limits and current use per endpoint group, and the credit balances (GET /v1/rate-limits)",
        },
        get("/v1/rate-limits"),
      ),
      documentResource(
        {
          uri: CATALOGUE_URI,
          name: "catalogue",
          title: "Capability catalogue",
          description: "Every tool with its /v1 endpoint, credit cost and agent-surface price",
        },
        () => catalogueDocument([...catalogue.byName.values()], "account"),
      ),
      ...openApiResources(get),
    ],
  });
}

async function callForAccount(
  c: Ctx,
  cap: AnyCapability,
  args: Record<string, unknown> | undefined,
  index: number,
): Promise<CallToolResult> {
  const auth = c.get("auth");
  const started = Date.now();
  const converted = queryOfArguments(cap, args);
  const query = "query" in converted ? converted.query : {};
  let response: Response;
  let body: unknown;
  let billing: BillingDecision = NOT_BILLED;
  if ("problem" in converted) {
    response = errorResponse(400, "params_invalid", converted.problem);
  } else {
    // The same validation as the /v1 route's (a 400 params_invalid naming the first problem).
    const parsed = cap.params.safeParse(query);
    if (!parsed.success) {
      response = errorResponse(400, "params_invalid", describeIssue(parsed.error, query, "query"));
    } else {
      const execution = await executeCapability(cap, parsed.data as Record<string, unknown>, {
        env: c.env,
        waitUntil: (p) => c.executionCtx.waitUntil(p),
        accountId: auth.account.id,
        plan: auth.account.plan,
        surface: "v1",
      });
      ({ response, billing } = execution);
      body = execution.result?.body;
    }
  }
  logToolCall(c, auth, cap, query, { status: response.status, billing, started, index });
  if (response.status === 200 && body !== undefined) return answerResult(cap, body);
  if (response.status === 200)
    return errorResult(errorBody(500, "server_error", "The answer could not be read. The error was logged.").errors);
  return errorResultOf(response);
}

/**
 * The request-log row of one tool call: the /v1 row (who, which key or OAuth app, IP, user agent),
 * with the capability's type, status and billing. `uri` names the tool and its parameters, masked
 * like any logged URI. Calls batched into one HTTP request get distinct row ids. The row waits for
 * the limiter's billing decision, written by whichever request receives it.
 */
function logToolCall(
  c: Ctx,
  auth: AuthContext,
  cap: AnyCapability,
  query: Record<string, string>,
  call: { status: number; billing: BillingDecision; started: number; index: number },
) {
  const uri = new URL(c.req.url);
  uri.search = new URLSearchParams({ tool: toolName(cap), ...query }).toString();
  const rowId = currentLogRowId();
  const row = {
    ...buildLogRow(c, auth, call.started, Date.now()),
    endpoint: "/v1/mcp",
    // Only the tool's declared parameters are kept, as on /v1 (log-uri.ts).
    uri: loggedUri(uri, ["tool", ...Object.keys(cap.params.shape)]),
    statusCode: call.status,
    type: cap.label,
    requestId: rowId && call.index > 0 ? `${rowId}.${call.index}` : rowId,
  };
  const env = c.env;
  const written = call.billing.whenDecided((billed) =>
    enqueueLogRow(env, { ...row, usageCategory: billed ? cap.usageCategory : null, cost: billed }).catch((err) =>
      logError("request log write failed", err),
    ),
  );
  if (written) c.executionCtx.waitUntil(written);
}
