import { errorResponse } from "../http/errors.js";
import { type HoldOutcome, MAX_UNBILLED_RUNS, UNBILLED_RUN_WINDOW_MS } from "./ledger.js";

/**
 * The one rule for a credential that keeps running unbilled calls (every paid transport uses it:
 * HTTP here, and any other surface that holds credentials in the PaymentLedger). The spec lets a
 * 422 or 429 leave the credential spendable, so past MAX_UNBILLED_RUNS in UNBILLED_RUN_WINDOW_MS
 * the answer is a 429 with Retry-After, unbilled, without running the capability: the credential
 * is not burnt and pays for its next successful call once the window has passed.
 */
export interface UnbilledRunsRefusal {
  status: 429;
  type: "rate_limit";
  retryAfterSeconds: number;
  message: string;
}

/** What to answer when the ledger refused a hold for too many unbilled runs. */
export function unbilledRunsRefusal(hold: Extract<HoldOutcome, { status: "unbilled_limit" }>): UnbilledRunsRefusal {
  const window = Math.round(UNBILLED_RUN_WINDOW_MS / 1000);
  return {
    status: 429,
    type: "rate_limit",
    retryAfterSeconds: hold.retryAfterSeconds,
    message:
      `This credential ran ${hold.runs} unbilled requests in the last ${window} seconds (at most ${MAX_UNBILLED_RUNS}). ` +
      `It was not charged and stays spendable: retry after ${hold.retryAfterSeconds} seconds and it pays for the next answer.`,
  };
}

/** The same refusal as an HTTP answer (X-Payment-Charged: false, integer Retry-After). */
export function unbilledRunsResponse(refusal: UnbilledRunsRefusal): Response {
  return errorResponse(refusal.status, refusal.type, refusal.message, {
    "retry-after": String(refusal.retryAfterSeconds),
    "x-payment-charged": "false",
  });
}
