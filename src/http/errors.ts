import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  Claimed,
  EngineError,
  InvalidInput,
  NotAllowed,
  NotFound,
  SiteFailed,
  Unavailable,
  WebmailDomain,
} from "../engine/errors.js";
import { EgressError } from "../engine/web/egress-error.js";
import { currentRequestId, logError } from "../request-context.js";

/**
 * The closed vocabulary of error types, each with the HTTP status it is answered with. Every error
 * body on every surface carries one of these types; `ApiError` and `errorResponse` refuse (at compile
 * time) a type outside this map or a status the map does not give it. Published as an enum in both
 * OpenAPI documents (`ERROR_CODES`).
 *
 * One type legitimately has two statuses: `params_invalid` is 400 on /v1, and 422 on the agent
 * surface (the spec's "upstream rejected the request", unbilled: the gate turns the capability's
 * 400 into a 422 and keeps the type) and for an operator claim whose value does not parse as its
 * kind (the request is well-formed, the value is not an address, number or profile).
 * (`rate_limit` also answers an exhausted credit balance on the endpoints where the spec answers it
 * 429 without Retry-After.)
 */
export const ERROR_STATUS = {
  // 400: the request itself is wrong.
  bad_request: 400,
  params_invalid: [400, 422],
  missing_credentials: 400,
  malformed_credentials: 400,
  api_key_expired: 400,
  // 401: credentials that match no usable account.
  authentication_failed: 401,
  invalid_credentials: 401,
  account_blocked: 401,
  account_unconfirmed: 401,
  account_without_password: 401,
  subscription_expired: 401,
  access_token_malformed: 401,
  access_token_invalid: 401,
  access_token_expired: 401,
  access_token_revoked: 401,
  // 402: credits used up (the account API; the agent surface's 402 is an MPP problem+json).
  quota_exceeded: 402,
  // 403
  forbidden: 403,
  insufficient_scope: 403,
  // 404: a missing or foreign record, or no such route.
  unknown_record: 404,
  unknown_route: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  invalid_state: 409,
  already_member: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  // 422: understood, but cannot be done.
  unprocessable_entity: 422,
  url_not_allowed: 422,
  domain_not_found: 422,
  unknown_company: 422,
  webmail_domain: 422,
  article_unavailable: 422,
  duplicate_record: 422,
  keys_limit_reached: 422,
  leads_limit_reached: 422,
  lists_limit_reached: 422,
  attributes_limit_reached: 422,
  webhooks_limit_reached: 422,
  team_limit_reached: 422,
  rate_limit: 429,
  // 451: removed at its owner's request.
  claimed_email: 451,
  claimed_phone: 451,
  claimed_linkedin: 451,
  // 5xx: our side or a dependency; never billed.
  server_error: 500,
  bad_gateway: 502,
  site_unreachable: 502,
  payment_provider_unreachable: 502,
  service_unavailable: 503,
  dns_unavailable: 503,
  smtp_prober_unavailable: 503,
  payment_gate_unavailable: 503,
  gateway_timeout: 504,
  site_timeout: 504,
} as const satisfies Record<string, ContentfulStatusCode | readonly ContentfulStatusCode[]>;

export type ErrorCode = keyof typeof ERROR_STATUS;
/** Every error type, for `z.enum(ERROR_CODES)` in the OpenAPI documents. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

type Entry<T extends ErrorCode> = (typeof ERROR_STATUS)[T];
/** The status(es) the map gives a type (distributes over a union of types). */
export type StatusOf<T extends ErrorCode> = T extends ErrorCode
  ? Entry<T> extends readonly (infer S)[]
    ? S
    : Entry<T>
  : never;
/** The types answered with status S, e.g. `CodeWithStatus<401>`. */
export type CodeWithStatus<S extends number> = { [T in ErrorCode]: S extends StatusOf<T> ? T : never }[ErrorCode];
export type ErrorStatus = StatusOf<ErrorCode>;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, value);
}

/** Whether the map allows `status` for `type` (for values that arrive untyped, e.g. across an RPC boundary). */
export function statusAllowed(type: ErrorCode, status: number): boolean {
  const entry: number | readonly number[] = ERROR_STATUS[type];
  return typeof entry === "number" ? entry === status : entry.includes(status);
}

/**
 * The one error shape every surface answers with: {"errors": {type, message, code, request_id}}.
 * Clients of this kind of API read `errors.message` without a guard, so nothing else may leak.
 * `request_id` is the response's X-Request-Id (absent outside a request, e.g. in a queue consumer).
 */
export interface ErrorBody {
  errors: { type: ErrorCode; message: string; code: number; request_id?: string };
}

export class ApiError<T extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly status: NoInfer<StatusOf<T>>,
    readonly type: T,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function errorBody<T extends ErrorCode>(status: NoInfer<StatusOf<T>>, type: T, message: string): ErrorBody {
  const requestId = currentRequestId();
  return { errors: { type, message, code: status, ...(requestId ? { request_id: requestId } : {}) } };
}

export function errorResponse<T extends ErrorCode>(
  status: NoInfer<StatusOf<T>>,
  type: T,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(errorBody<T>(status, type, message)), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

const TYPE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
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

/** The type for a bare status (hono's HTTPException); a status outside the table is a 400 or 500. */
export function defaultTypeFor(status: number): { status: ErrorStatus; type: ErrorCode } {
  const type = TYPE_BY_STATUS[status];
  if (type && statusAllowed(type, status)) return { status: status as ErrorStatus, type };
  return status >= 500 ? { status: 500, type: "server_error" } : { status: 400, type: "bad_request" };
}

/**
 * The boundary between the engine and the API: every engine domain error becomes the ApiError it
 * has always been answered with (same type, status, message and headers). Null for anything else.
 * Used by every surface through `toErrorResponse` (the /v1 and root error handlers, the capability
 * executor that serves /v1, the agent surface and bulk rows) and by callers that tolerate a failure.
 */
export function apiErrorOf(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof EngineError) return engineApiError(err);
  if (err instanceof EgressError) {
    // The engine's domain error for an outbound request, answered like the crawler's own failures.
    if (err.kind === "refused")
      return new ApiError(422, "url_not_allowed", `The URL ${err.url} cannot be fetched: ${err.reason}.`);
    if (err.kind === "no_such_host")
      return new ApiError(422, "domain_not_found", `The URL ${err.url} cannot be fetched: ${err.reason}.`);
    if (err.kind === "timeout")
      return new ApiError(504, "site_timeout", `${err.url} did not answer in time; nothing was charged.`);
    return new ApiError(
      502,
      "site_unreachable",
      `${err.url} could not be reached (${err.reason}); nothing was charged.`,
    );
  }
  return null;
}

function engineApiError(err: EngineError): ApiError {
  const retryAfter = (seconds: number | null): Record<string, string> =>
    seconds === null ? {} : { "Retry-After": String(seconds) };
  if (err instanceof InvalidInput) return new ApiError(400, "params_invalid", err.message);
  if (err instanceof Claimed) return new ApiError(451, `claimed_${err.kind}`, err.message);
  if (err instanceof Unavailable)
    return new ApiError(503, `${err.what}_unavailable`, err.message, retryAfter(err.retryAfterSeconds));
  if (err instanceof NotAllowed) return new ApiError(422, "url_not_allowed", err.message);
  if (err instanceof NotFound)
    return new ApiError(422, err.what === "domain" ? "domain_not_found" : "unknown_company", err.message);
  if (err instanceof WebmailDomain) return new ApiError(422, "webmail_domain", err.message);
  if (err instanceof SiteFailed) {
    return err.how === "timeout"
      ? new ApiError(504, "site_timeout", err.message, retryAfter(err.retryAfterSeconds))
      : new ApiError(502, "site_unreachable", err.message, retryAfter(err.retryAfterSeconds));
  }
  // A new EngineError subclass without a mapping is our bug: answer it like any unexpected error.
  return new ApiError(500, "server_error", "Something went wrong on our side. The error was logged.");
}

/** Maps anything thrown inside a handler to the error body; never leaks a stack trace. */
export function toErrorResponse(err: unknown, c?: Context): Response {
  const api = apiErrorOf(err);
  if (api) return errorResponse(api.status, api.type, api.message, api.headers);
  if (err instanceof HTTPException) {
    const { status, type } = defaultTypeFor(err.status);
    const message =
      status === 504
        ? "The request ran past the 180-second limit."
        : err.message || "The request could not be processed.";
    return errorResponse(status, type, message);
  }
  logError("unhandled error", c?.req.method, c?.req.path, err);
  return errorResponse(500, "server_error", "Something went wrong on our side. The error was logged.");
}
