// Kept apart from egress.ts (no imports) so the HTTP error mapper can know it without an import cycle.

export type EgressFailure =
  /** Policy: the URL, a redirect or a DNS answer is not allowed. Not retryable. */
  | "refused"
  /** The host name does not exist or has no A/AAAA address: the caller named something that is not there. */
  | "no_such_host"
  /** Network failure, or DNS could not answer. */
  | "unreachable"
  /** The time budget ran out. */
  | "timeout";

/** A domain error (not an HTTP one): callers decide what status it becomes. */
export class EgressError extends Error {
  constructor(
    readonly kind: EgressFailure,
    readonly url: string,
    readonly reason: string,
  ) {
    super(`${url}: ${reason}`);
    this.name = "EgressError";
  }
}
