import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { EgressError } from "../engine/web/egress-error.js";

/**
 * The one error shape every surface answers with: {"errors": {type, message, code}}.
 * Clients of this kind of API read `errors.message` without a guard, so nothing else may leak.
 */
export interface ErrorBody {
  errors: { type: string; message: string; code: number };
}

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly type: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function errorBody(status: number, type: string, message: string): ErrorBody {
  return { errors: { type, message, code: status } };
}

export function errorResponse(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(errorBody(status, type, message)), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: "bad_request",
  401: "authentication_failed",
  403: "forbidden",
  404: "unknown_route",
  405: "method_not_allowed",
  408: "request_timeout",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "unprocessable_entity",
  429: "rate_limit",
  500: "server_error",
  502: "bad_gateway",
  503: "service_unavailable",
  504: "gateway_timeout",
};

export function defaultTypeFor(status: number): string {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? "server_error" : "bad_request");
}

/** Maps anything thrown inside a handler to the error body; never leaks a stack trace. */
export function toErrorResponse(err: unknown, c?: Context): Response {
  if (err instanceof ApiError) return errorResponse(err.status, err.type, err.message, err.headers);
  if (err instanceof HTTPException) {
    const status = err.status;
    const message =
      status === 504
        ? "The request ran past the 180-second limit."
        : err.message || "The request could not be processed.";
    return errorResponse(status, defaultTypeFor(status), message);
  }
  if (err instanceof EgressError) {
    // The engine's domain error for an outbound request, answered like the crawler's own failures.
    if (err.kind === "refused") return errorResponse(422, "url_not_allowed", `The URL ${err.url} cannot be fetched: ${err.reason}.`);
    if (err.kind === "no_such_host") return errorResponse(422, "domain_not_found", `The URL ${err.url} cannot be fetched: ${err.reason}.`);
    if (err.kind === "timeout") return errorResponse(504, "site_timeout", `${err.url} did not answer in time; nothing was charged.`);
    return errorResponse(502, "site_unreachable", `${err.url} could not be reached (${err.reason}); nothing was charged.`);
  }
  console.error("unhandled error", c?.req.method, c?.req.path, err);
  return errorResponse(500, "server_error", "Something went wrong on our side. The error was logged.");
}
