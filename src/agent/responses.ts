import { errorResponse } from "../http/errors.js";

export function providerFault(message: string): Response {
  return errorResponse(502, "payment_provider_unreachable", message, { "x-payment-charged": "false" });
}

export function gateUnavailable(message: string, retryAfterSeconds: number): Response {
  return errorResponse(503, "payment_gate_unavailable", message, {
    "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))),
    "x-payment-charged": "false",
  });
}
