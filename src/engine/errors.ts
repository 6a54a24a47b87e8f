/**
 * What can go wrong inside the engine, said in the engine's own terms. The engine knows nothing
 * of HTTP: the boundary (src/http/errors.ts, `apiErrorOf`) turns each of these into the error
 * type, status and headers the API answers with. Messages are written here because they describe
 * the domain ("the website of x.test could not be reached"), and reach the caller unchanged.
 */
export abstract class EngineError extends Error {}

/** A caller's value that the engine cannot work with (400 params_invalid). */
export class InvalidInput extends EngineError {
  constructor(
    /** The parameter named in the message, when there is one. */
    readonly param: string | null,
    message: string,
  ) {
    super(message);
    this.name = "InvalidInput";
  }
}

/** Data removed at its owner's request (451 claimed_<kind>). */
export class Claimed extends EngineError {
  constructor(
    readonly kind: "email" | "phone" | "linkedin",
    message: string,
  ) {
    super(message);
    this.name = "Claimed";
  }
}

/** A dependency the engine cannot do without did not answer: nothing is decided, retry later (503). */
export class Unavailable extends EngineError {
  constructor(
    readonly what: "dns" | "smtp_prober",
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = "Unavailable";
  }
}

/** A URL or domain the engine will not fetch: private address, forbidden scheme (422 url_not_allowed). */
export class NotAllowed extends EngineError {
  constructor(message: string) {
    super(message);
    this.name = "NotAllowed";
  }
}

/** A name the engine looked for that does not exist (422 domain_not_found, unknown_company). */
export class NotFound extends EngineError {
  constructor(
    readonly what: "domain" | "company",
    message: string,
  ) {
    super(message);
    this.name = "NotFound";
  }
}

/** A domain that cannot answer the question: a webmail or disposable provider (422 webmail_domain). */
export class WebmailDomain extends EngineError {
  constructor(message: string) {
    super(message);
    this.name = "WebmailDomain";
  }
}

/** A site that could not be read: unreachable (502 site_unreachable) or too slow (504 site_timeout). */
export class SiteFailed extends EngineError {
  constructor(
    readonly how: "unreachable" | "timeout",
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = "SiteFailed";
  }
}
