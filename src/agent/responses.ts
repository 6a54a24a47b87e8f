import { Challenge, Errors } from "mppx";
import { errorResponse } from "../http/errors.js";
import { currentRequestId } from "../request-context.js";
import type { Offer, PaymentProvider } from "./provider.js";

/**
 * A 402: one WWW-Authenticate Payment challenge per accepted currency (separate header values,
 * so clients parsing the list see each) and a problem+json body saying why.
 */
export async function paymentRequired(provider: PaymentProvider, offer: Offer, why: Errors.PaymentError): Promise<Response> {
  const challenges = await Promise.all(provider.currencies.map((currency) => provider.challenge(offer, currency)));
  const headers = new Headers({ "content-type": "application/problem+json", "cache-control": "no-store", "x-payment-charged": "false" });
  for (const challenge of challenges) headers.append("www-authenticate", Challenge.serialize(challenge));
  // 402 whatever status the mppx error class carries (a few are 400/500 in mppx): for the agent
  // surface every refused credential means "pay with one of these".
  // request_id: an RFC 9457 extension member, the response's X-Request-Id (as in every error body).
  const requestId = currentRequestId();
  return new Response(JSON.stringify({ ...why.toProblemDetails(), status: 402, ...(requestId ? { request_id: requestId } : {}) }), { status: 402, headers });
}

export function providerFault(message: string): Response {
  return errorResponse(502, "payment_provider_unreachable", message, { "x-payment-charged": "false" });
}

export function gateUnavailable(message: string, retryAfterSeconds: number): Response {
  return errorResponse(503, "payment_gate_unavailable", message, {
    "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))),
    "x-payment-charged": "false",
  });
}

export const paymentRequiredError = (description?: string) => new Errors.PaymentRequiredError({ description });
