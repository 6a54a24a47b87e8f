import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { DnsUnavailableError } from "../../src/engine/dns/resolver.js";
import {
  Claimed,
  InvalidInput,
  NotAllowed,
  NotFound,
  SiteFailed,
  Unavailable,
  WebmailDomain,
} from "../../src/engine/errors.js";
import { SmtpProberUnavailableError } from "../../src/engine/verify/smtp-prober.js";
import { EgressError } from "../../src/engine/web/egress-error.js";
import {
  ApiError,
  apiErrorOf,
  ERROR_CODES,
  ERROR_STATUS,
  errorResponse,
  statusAllowed,
  toErrorResponse,
} from "../../src/http/errors.js";
import { withRequestId } from "../../src/http/request-id.js";
import { call, json } from "../support/accounts.js";

describe("one error vocabulary", () => {
  it("refuses, at compile time, a type outside the map or a status the map does not give it", () => {
    // These lines are checked by `tsc --noEmit` (an unused @ts-expect-error is itself an error).
    const compileOnly = () => {
      // @ts-expect-error not a type of the vocabulary
      new ApiError(400, "no_such_type", "x");
      // @ts-expect-error unknown_record is a 404
      new ApiError(400, "unknown_record", "x");
      // @ts-expect-error rate_limit is a 429
      errorResponse(503, "rate_limit", "x");
      new ApiError(422, "params_invalid", "the agent surface's upstream 422");
      new ApiError(400, "params_invalid", "the account API's 400");
    };
    expect(typeof compileOnly).toBe("function");
  });

  it("gives each type one status, except params_invalid (400 on /v1, 422 on the agent surface and for operator claim values)", () => {
    const several = Object.entries(ERROR_STATUS).filter(([, s]) => typeof s !== "number");
    expect(several).toEqual([["params_invalid", [400, 422]]]);
    expect(statusAllowed("params_invalid", 422)).toBe(true);
    expect(statusAllowed("unknown_record", 400)).toBe(false);
  });

  it("publishes the vocabulary as an enum in the /v1 OpenAPI document", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    const error = doc.components.schemas.Error.properties.errors;
    expect(error.properties.type.enum).toEqual(ERROR_CODES);
    expect(error.properties.request_id.type).toBe("string");
  });

  it("publishes the vocabulary as an enum in the agent surface's OpenAPI document", async () => {
    const doc = await json(await call("/openapi.json"));
    const error = doc.components.schemas.Error.properties.errors;
    expect(error.properties.type.enum).toEqual(ERROR_CODES);
    expect(doc.components.schemas.PaymentRequired.properties.request_id.type).toBe("string");
  });
});

describe("engine domain errors, mapped at the boundary", () => {
  // The wire errors these engine failures were answered with before the engine stopped importing
  // ApiError: the same type, status, message and headers.
  const cases: [string, Error, { status: number; type: string; message: string; headers: Record<string, string> }][] = [
    [
      "invalid input",
      new InvalidInput("domain", "The parameter 'domain' is invalid: x"),
      { status: 400, type: "params_invalid", message: "The parameter 'domain' is invalid: x", headers: {} },
    ],
    [
      "a claimed email",
      new Claimed("email", "gone"),
      { status: 451, type: "claimed_email", message: "gone", headers: {} },
    ],
    [
      "a claimed phone",
      new Claimed("phone", "gone"),
      { status: 451, type: "claimed_phone", message: "gone", headers: {} },
    ],
    [
      "a claimed profile",
      new Claimed("linkedin", "gone"),
      { status: 451, type: "claimed_linkedin", message: "gone", headers: {} },
    ],
    [
      "DNS down",
      new DnsUnavailableError("x.test", "SERVFAIL"),
      {
        status: 503,
        type: "dns_unavailable",
        message:
          "The DNS lookup for x.test could not be completed (SERVFAIL), so no verdict was given and nothing was charged. Try again in a minute.",
        headers: { "Retry-After": "30" },
      },
    ],
    [
      "the SMTP prober down",
      new SmtpProberUnavailableError("HTTP 500"),
      {
        status: 503,
        type: "smtp_prober_unavailable",
        message:
          "The mailbox check could not be run (HTTP 500), so no verdict was given and nothing was charged. Try again in a minute.",
        headers: { "Retry-After": "30" },
      },
    ],
    ["a URL not allowed", new NotAllowed("no"), { status: 422, type: "url_not_allowed", message: "no", headers: {} }],
    [
      "a domain that does not exist",
      new NotFound("domain", "nx"),
      { status: 422, type: "domain_not_found", message: "nx", headers: {} },
    ],
    [
      "an unknown company",
      new NotFound("company", "who"),
      { status: 422, type: "unknown_company", message: "who", headers: {} },
    ],
    [
      "a webmail domain",
      new WebmailDomain("gmail"),
      { status: 422, type: "webmail_domain", message: "gmail", headers: {} },
    ],
    [
      "an unreachable site (crawl)",
      new SiteFailed("unreachable", "down", 600),
      { status: 502, type: "site_unreachable", message: "down", headers: { "Retry-After": "600" } },
    ],
    [
      "an unreachable site (no retry hint)",
      new SiteFailed("unreachable", "down"),
      { status: 502, type: "site_unreachable", message: "down", headers: {} },
    ],
    [
      "a slow site",
      new SiteFailed("timeout", "slow"),
      { status: 504, type: "site_timeout", message: "slow", headers: {} },
    ],
    [
      "an egress refusal",
      new EgressError("refused", "http://10.0.0.1/", "private address"),
      {
        status: 422,
        type: "url_not_allowed",
        message: "The URL http://10.0.0.1/ cannot be fetched: private address.",
        headers: {},
      },
    ],
    [
      "an egress timeout",
      new EgressError("timeout", "https://slow.test/", "deadline"),
      {
        status: 504,
        type: "site_timeout",
        message: "https://slow.test/ did not answer in time; nothing was charged.",
        headers: {},
      },
    ],
  ];

  it.each(cases)("maps %s to the wire error it always had", async (_, err, expected) => {
    const api = apiErrorOf(err)!;
    expect({ status: api.status, type: api.type, message: api.message, headers: api.headers }).toEqual(expected);
    const res = toErrorResponse(err);
    expect(res.status).toBe(expected.status);
    for (const [k, v] of Object.entries(expected.headers)) expect(res.headers.get(k)).toBe(v);
    expect(((await res.json()) as { errors: unknown }).errors).toEqual({
      type: expected.type,
      message: expected.message,
      code: expected.status,
    });
  });

  it("keeps the dependency's name in Unavailable, so a new one cannot reuse another's type by accident", () => {
    expect(apiErrorOf(new Unavailable("dns", "m", 5))!.headers).toEqual({ "Retry-After": "5" });
  });

  it("leaves anything else to the unexpected-error path", () => {
    expect(apiErrorOf(new TypeError("boom"))).toBeNull();
  });
});

describe("the request id on responses a handler builds itself", () => {
  it("is set even on a Response whose headers are immutable", async () => {
    const app = new Hono();
    app.use("*", withRequestId());
    app.get("/moved", () => Response.redirect("https://elsewhere.test/", 302));
    const res = await app.request("/moved");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://elsewhere.test/");
    expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
