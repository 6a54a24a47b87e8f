import type { Errors } from "mppx";
import { loadPaymentVendor, type PaymentVendor } from "../payment-vendor.js";
import { currentRequestId, logError } from "../request-context.js";
import { type Offer, PaymentGateUnavailable, type PaymentProvider, PaymentProviderFault } from "./provider.js";

/**
 * What the payment gate (and any other surface that takes payments) needs from mppx at run time:
 * the wire formats of credentials and receipts, mppx's error classes, the error classifier and the
 * 402 response. Loaded with the payment stack on first use.
 */
export interface PaymentWire {
  Credential: PaymentVendor["Credential"];
  Errors: PaymentVendor["Errors"];
  Receipt: PaymentVendor["Receipt"];
  /** Sorts a thrown error into the provider's error contract (src/agent/provider.ts). */
  classifyProviderError(err: unknown): Errors.PaymentError | PaymentProviderFault | PaymentGateUnavailable;
  /** A 402 with fresh challenges, saying why the request was refused. */
  paymentRequired(provider: PaymentProvider, offer: Offer, why: Errors.PaymentError): Promise<Response>;
  paymentRequiredError(description?: string): Errors.PaymentError;
}

export async function loadPaymentWire(): Promise<PaymentWire> {
  const vendor = await loadPaymentVendor();
  return {
    Credential: vendor.Credential,
    Errors: vendor.Errors,
    Receipt: vendor.Receipt,
    classifyProviderError: (err) => classifyProviderError(vendor.Errors, err),
    paymentRequired: (provider, offer, why) => paymentRequired(vendor, provider, offer, why),
    paymentRequiredError: (description) => new vendor.Errors.PaymentRequiredError({ description }),
  };
}

/** viem errors that mean "the network did not answer", as opposed to "this credential is bad". */
const TRANSPORT_ERRORS = new Set([
  "HttpRequestError",
  "TimeoutError",
  "RpcRequestError",
  "WebSocketRequestError",
  "SocketClosedError",
  "InternalRpcError",
  "LimitExceededRpcError",
  "ResourceUnavailableRpcError",
  "UnknownRpcError",
]);

function isTransportFault(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const name = (e as Error).name;
    if (TRANSPORT_ERRORS.has(name)) return true;
    // fetch() itself failing (DNS, connection reset) throws a TypeError in workerd.
    if (e instanceof TypeError && /fetch|network|connect/i.test(e.message)) return true;
  }
  return false;
}

/**
 * Sorts a thrown error into the contract above. Bad bytes inside a credential (viem parse errors,
 * schema errors) are the payer's problem (402); a network that does not answer is ours (502).
 * Anything else unexpected is treated as our fault too: a holder of a valid credential must never
 * be told to pay again because of a bug on our side.
 */
function classifyProviderError(
  Errors: PaymentVendor["Errors"],
  err: unknown,
): Errors.PaymentError | PaymentProviderFault | PaymentGateUnavailable {
  if (
    err instanceof Errors.PaymentError ||
    err instanceof PaymentProviderFault ||
    err instanceof PaymentGateUnavailable
  )
    return err;
  if (isTransportFault(err))
    return new PaymentProviderFault(
      `The payment network could not be reached: ${(err as Error).message.split("\n")[0]}`,
    );
  const name = (err as Error)?.name ?? "";
  if (name === "ZodError" || name === "$ZodError" || /Signature|Address|Hex|Abi|Bytes|Decode|Serialize/.test(name)) {
    return new Errors.VerificationFailedError({ reason: "the credential payload could not be verified" });
  }
  logError("payment provider error", err);
  return new PaymentProviderFault("The credential could not be validated because of a payment provider fault.");
}

/**
 * A 402: one WWW-Authenticate Payment challenge per accepted currency (separate header values,
 * so clients parsing the list see each) and a problem+json body saying why.
 */
async function paymentRequired(
  vendor: PaymentVendor,
  provider: PaymentProvider,
  offer: Offer,
  why: Errors.PaymentError,
): Promise<Response> {
  const challenges = await Promise.all(provider.currencies.map((currency) => provider.challenge(offer, currency)));
  const headers = new Headers({
    "content-type": "application/problem+json",
    "cache-control": "no-store",
    "x-payment-charged": "false",
  });
  for (const challenge of challenges) headers.append("www-authenticate", vendor.Challenge.serialize(challenge));
  // 402 whatever status the mppx error class carries (a few are 400/500 in mppx): for the agent
  // surface every refused credential means "pay with one of these".
  // request_id: an RFC 9457 extension member, the response's X-Request-Id (as in every error body).
  const requestId = currentRequestId();
  return new Response(
    JSON.stringify({ ...why.toProblemDetails(), status: 402, ...(requestId ? { request_id: requestId } : {}) }),
    { status: 402, headers },
  );
}
