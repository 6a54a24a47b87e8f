import type { Credential } from "mppx";
import { type GateDeps, servePaid } from "../agent/payment-gate.js";
import type { AnyCapability } from "../capabilities/core/registry.js";
import { errorBody } from "../http/errors.js";
import type { Ctx } from "../http/openapi.js";
import { describeIssue } from "../http/validation.js";
import { loadPaymentVendor, type PaymentVendor } from "../payment-vendor.js";
import type { SelfFetch } from "./account-surface.js";
import { CATALOGUE_URI, catalogueDocument } from "./catalogue.js";
import {
  catalogueFor,
  documentResource,
  endpointOf,
  type McpEndpoint,
  openApiResources,
  type ProtocolError,
  type ToolOutcome,
} from "./endpoint.js";
import { answerResult, errorResult, errorResultOf, queryOfArguments } from "./tools.js";

/**
 * /mcp: the agent surface over MCP. Payment is the only credential, per call, with MPP over MCP:
 * a call without a credential fails with JSON-RPC error -32042 carrying the Payment challenges;
 * the client pays one and repeats the call with the credential in
 * `params._meta["org.paymentauth/credential"]`; a paid answer carries the receipt in
 * `result._meta["org.paymentauth/receipt"]`.
 *
 * Each paid call is the HTTP agent surface's own call: `servePaid` (src/agent/payment-gate.ts)
 * validates the credential, holds it in the PaymentLedger, runs the capability as the shared agents
 * account and settles only a 200; every other exit releases the hold. So an MCP call is billed,
 * refused, replay-protected and rate-limited exactly as `GET /<capability>` with
 * `Authorization: Payment …` is, and follows that function when its rules change. This module only
 * translates: the credential into the header form, and the HTTP answer into MCP's.
 */

const INSTRUCTIONS =
  "Contact Intelligence, paid per call: find and verify work email addresses, find and validate phone numbers, and enrich people and companies. " +
  "No account and no API key: each tool call is paid with the Machine Payments Protocol (MPP) in USDC or USDT. A call without payment fails with " +
  "JSON-RPC error -32042 listing the payment challenges (one per currency); an MPP client (e.g. mppx's McpClient.wrap) pays one and repeats the call. " +
  "You are charged only when the tool answers; an error (bad parameters, rate limit, nothing could be fetched) is free and the same payment stays usable. " +
  "Prices are in each tool's description and in the contact-intelligence://catalogue resource.";

/**
 * An undecodable `_meta` credential takes the gate's own path for an undecodable header (a fresh
 * challenge with a malformed-credential problem): this value is such a header.
 */
const UNDECODABLE = "Payment -";

export function agentEndpoint(
  c: Ctx,
  capabilities: readonly AnyCapability[],
  gate: GateDeps,
  self: SelfFetch,
): McpEndpoint {
  const catalogue = catalogueFor(capabilities, "agent");
  const url = new URL(c.req.url);
  const get = (path: string) => () => self(new Request(new URL(path, url)));
  return endpointOf(catalogue, {
    instructions: INSTRUCTIONS,
    run: (cap, args, meta) => paidCall(c, cap, args, meta, gate),
    resources: [
      documentResource(
        {
          uri: CATALOGUE_URI,
          name: "catalogue",
          title: "Capability catalogue",
          description: "Every tool with its price per call (USD, paid in USDC or USDT)",
        },
        () => catalogueDocument([...catalogue.byName.values()], "agent"),
      ),
      ...openApiResources(get),
    ],
  });
}

async function paidCall(
  c: Ctx,
  cap: AnyCapability,
  args: Record<string, unknown> | undefined,
  meta: Record<string, unknown> | undefined,
  gate: GateDeps,
): Promise<ToolOutcome> {
  const converted = queryOfArguments(cap, args);
  // Parameters the capability would refuse are refused before any payment: the gate would answer
  // the same 422 after the agent paid (unbilled), so asking for the payment first is only a detour.
  if ("problem" in converted)
    return { result: errorResult(errorBody(422, "params_invalid", converted.problem).errors) };
  const parsed = cap.params.safeParse(converted.query);
  if (!parsed.success)
    return {
      result: errorResult(
        errorBody(422, "params_invalid", describeIssue(parsed.error, converted.query, "query")).errors,
      ),
    };

  // The payment stack loads on the first paid call (src/payment-vendor.ts), as on the HTTP surface.
  const vendor = await loadPaymentVendor();
  const { Mcp, Receipt } = vendor;
  const credential = meta?.[Mcp.credentialMetaKey];
  const response = await servePaid(
    cap,
    {
      env: c.env,
      query: converted.query,
      host: new URL(c.req.url).hostname,
      authorization: credential === undefined ? undefined : headerOf(vendor, credential),
      clientIp: c.req.header("cf-connecting-ip"),
      waitUntil: (p) => c.executionCtx.waitUntil(p),
    },
    gate,
  );
  if (response.status === 402) return { protocolError: await paymentError(vendor, response) };
  if (response.status !== 200) return { result: await errorResultOf(response) };

  const receipt = Receipt.deserialize(response.headers.get("payment-receipt") ?? "");
  const challengeId = (credential as Credential.Credential).challenge.id;
  const answer = answerResult(cap, await response.json());
  return { result: { ...answer, _meta: { ...answer._meta, [Mcp.receiptMetaKey]: { ...receipt, challengeId } } } };
}

/** The `_meta` credential object in the `Authorization: Payment …` form the gate reads. */
function headerOf({ Credential }: PaymentVendor, credential: unknown): string {
  if (!credential || typeof credential !== "object" || !("challenge" in credential) || !("payload" in credential))
    return UNDECODABLE;
  try {
    return Credential.serialize(credential as Credential.Credential);
  } catch {
    return UNDECODABLE;
  }
}

/** MPP over MCP's codes for a refused or missing payment (mppx `Mcp.errorCode`), by problem type. */
const problemCodes = ({ Mcp }: PaymentVendor): Record<string, number> => ({
  "https://paymentauth.org/problems/payment-required": Mcp.paymentRequiredCode,
  "https://paymentauth.org/problems/malformed-credential": Mcp.invalidParamsCode,
  "https://paymentauth.org/problems/invalid-payload": Mcp.invalidParamsCode,
  "https://paymentauth.org/problems/internal-payment-error": Mcp.internalErrorCode,
});

/**
 * The gate's 402 (fresh challenges in WWW-Authenticate, why in a problem+json body) as MPP over
 * MCP's JSON-RPC error: `data` = {httpStatus: 402, challenges, problem}, as mppx's MCP transport sends.
 */
async function paymentError(vendor: PaymentVendor, response: Response): Promise<ProtocolError> {
  const challenges = vendor.Challenge.fromResponseList(response);
  const problem = (await response.json()) as { type?: string; detail?: string; title?: string };
  const code = problemCodes(vendor)[problem.type ?? ""] ?? vendor.Mcp.paymentVerificationFailedCode;
  return {
    code,
    message: problem.detail ?? problem.title ?? "Payment Required",
    data: { httpStatus: 402, challenges, problem },
  };
}
