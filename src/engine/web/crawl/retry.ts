import type { PageFetch } from "../fetch-page.js";

/**
 * When a crawl pass tries a failed page again: after the server's `Retry-After` (seconds or an HTTP
 * date; 1 s without one), at most `tries` times a pass; a bot challenge at most once a pass, after a pause.
 */
export interface RetryPolicy {
  /** The longest wait this pass honours; 0 = no retry in this pass (the failure is handed on). */
  maxWaitMs: number;
  /**
   * Beyond `maxWaitMs`: false (a pass with a later one) hands the page on rather than ask before the
   * time the server gave; true (the last pass) waits `maxWaitMs` and asks once.
   */
  clamp: boolean;
  /** Also retry failures the server did not ask to retry (502, 504, network errors), not only 429 and 503. */
  unasked: boolean;
  /** How many times one page the server asked to come back (429, 503, Retry-After) is retried in this pass. */
  tries: number;
  /**
   * The pause before a page that answered with a bot challenge is asked once more in this pass; 0 =
   * handed on. Never sooner: a defence that challenged a burst lets a slower client through.
   */
  challengePauseMs: number;
  /**
   * How many times this pass asks a challenged page at most, its first ask included; each pause is
   * twice the last (a defence that challenged a burst lets a client through that slows down).
   */
  challengeAsks: number;
  /**
   * A pass that does not clamp (the first): a site-wide rate limit (429) whose Retry-After leaves at
   * least this long of the pass is waited out, and the pass goes on one page at a time in the
   * limit's next window; a longer one stops the pass asking (the deep pass reads the rest). 0 = never.
   */
  waitOutLimitLeavingMs: number;
}

/** Without a Retry-After, a transient failure is tried again after this long. */
export const DEFAULT_RETRY_WAIT_MS = 1_000;

/**
 * A failure worth one more try later: 429, 5xx, a network error, a timeout, or a bot challenge
 * (defences often challenge a burst of requests and let a slower client through later; a retry
 * asks again, it never tries to solve the challenge); never a missing host.
 */
export function isTransient(r: PageFetch): r is Extract<PageFetch, { kind: "unreachable" | "unusable" }> {
  if (r.kind === "unreachable") return !r.noSuchHost;
  return r.kind === "unusable" && (!!r.transient || !!r.challenge);
}

const retryAfterOf = (r: PageFetch) => ("retryAfterMs" in r && r.retryAfterMs !== undefined ? r.retryAfterMs : null);

/** The server said "later": 429, 503, or any answer with a Retry-After (a challenge never says so: it is not asked to come back). */
export function askedToComeBack(r: PageFetch): boolean {
  return (
    (r.kind === "unreachable" || r.kind === "unusable") &&
    !r.challenge &&
    (r.status === 429 || r.status === 503 || retryAfterOf(r) !== null)
  );
}

/**
 * The wait before retrying `r` in this pass, or null when this pass does not retry it: not a
 * transient failure, a timeout (never retried in the pass that waited for it), a failure the server
 * did not ask to retry in a pass that retries only those, a wait beyond the policy's, or one that
 * would not fit in the `leftMs` the pass has. `asks`: how many times the page was asked in this pass.
 */
export function retryWait(
  r: PageFetch,
  policy: RetryPolicy,
  leftMs: number,
  pageTimeoutMs: number,
  asks = 1,
): number | null {
  if (!isTransient(r) || (r.kind === "unreachable" && r.timedOut)) return null;
  if (r.challenge) {
    const pause = policy.challengePauseMs * 2 ** Math.max(0, asks - 1);
    return pause > 0 && pause + pageTimeoutMs / 4 < leftMs ? pause : null;
  }
  if (policy.maxWaitMs <= 0) return null;
  if (!askedToComeBack(r) && !policy.unasked) return null;
  const asked = retryAfterOf(r) ?? DEFAULT_RETRY_WAIT_MS;
  if (asked > policy.maxWaitMs && !policy.clamp) return null;
  const wait = Math.min(asked, policy.maxWaitMs);
  return wait + pageTimeoutMs / 4 < leftMs ? wait : null;
}
