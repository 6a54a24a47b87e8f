import { Webhook } from "standardwebhooks";
import { EngineError } from "../engine/errors.js";
import { EgressError, guardedFetch } from "../engine/web/egress.js";
import type { Env } from "../env.js";
import { ApiError } from "../http/errors.js";
import type { DeliveryMessage } from "./types.js";
import { assertDeliverableUrl } from "./url-check.js";

/** Receivers are asked to answer within a few seconds; an attempt that takes longer counts as failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const USER_AGENT = "ContactIntelligence-Webhooks/1";

export interface AttemptResult {
  ok: boolean;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
}

/** Standard Webhooks headers for one attempt: the id stays the same across retries, the timestamp is now. */
export function signedHeaders(message: DeliveryMessage, secret: string, now: Date): Record<string, string> {
  const signature = new Webhook(secret).sign(message.id, now, message.body);
  return {
    "webhook-id": message.id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": signature,
  };
}

/**
 * THE outbound request of the delivery system; nothing else in src/delivery calls fetch. The URL
 * is checked again first (DNS answers can change between the API call and the attempt), redirects
 * are not followed (a 3xx counts as a failure), and the attempt is cut off after `timeoutMs`.
 */
export async function deliverOnce(
  env: Env,
  message: DeliveryMessage,
  secret: string,
  timeoutMs = ATTEMPT_TIMEOUT_MS,
): Promise<AttemptResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  try {
    await assertDeliverableUrl(env, message.url, "url");
  } catch (err) {
    const reason = err instanceof ApiError || err instanceof EngineError ? err.message : String(err);
    return { ok: false, responseCode: null, durationMs: elapsed(), error: `refused before sending: ${reason}` };
  }
  const headers = {
    // Configured headers first, so they cannot replace the signature or the content type.
    ...message.headers,
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    ...signedHeaders(message, secret, new Date()),
  };
  try {
    // Through the one egress guard: every address of the host is checked again at this attempt
    // (DNS answers can change after the API call), no redirect is followed (a 3xx is a failure),
    // and the receiver's answer is not read beyond its status.
    const res = await guardedFetch(env, message.url, {
      method: message.method,
      headers,
      body: message.body,
      maxRedirects: 0,
      timeoutMs,
      maxBytes: 0,
      accept: /^$/,
      loopbackOutsideProduction: true,
    });
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      responseCode: res.status,
      durationMs: elapsed(),
      error: ok ? null : `the receiver answered HTTP ${res.status}`,
    };
  } catch (err) {
    if (!(err instanceof EgressError)) throw err;
    const error =
      err.kind === "timeout"
        ? `no answer within ${timeoutMs} ms`
        : err.kind === "refused"
          ? `refused before sending: ${err.reason}`
          : `the receiver could not be reached (${err.reason})`;
    return { ok: false, responseCode: null, durationMs: elapsed(), error };
  }
}
