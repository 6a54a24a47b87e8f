import type { AuthContext } from "./auth/auth-context.js";
import type { BulkRowsMessage } from "./bulk/messages.js";
import type { DeliveryMessage } from "./delivery/types.js";
import type { MailHostPacer } from "./engine/verify/mail-host-pacer.js";
import type { SmtpRetryMessage } from "./engine/verify/smtp-retry-message.js";
import type { DeepCrawlMessage } from "./engine/web/crawl/deep-crawl-message.js";
import type { BalanceView, CreditBalance } from "./limits/groups.js";
import type { RequestLogMessage, RequestLogPacket } from "./platform/request-log-row.js";

/**
 * Bindings and variables the Worker is given. The bindings declared in wrangler.toml are typed by
 * `npm run types` (wrangler types → worker-configuration.d.ts, `WranglerBindings`; `npm run
 * typecheck` fails when that file is stale). Added here: the message type of each queue, which
 * bindings the code treats as optional, and the variables and secrets wrangler.toml does not set.
 * Every import above is a leaf module, so this file sits in no import cycle.
 */
type RefinedBindings =
  | "CRAWL_QUEUE"
  | "REQUEST_LOGS"
  | "DELIVERY_QUEUE"
  | "BULK_QUEUE"
  | "SMTP_RETRY_QUEUE"
  | "MAIL_HOST_PACER";

export interface Env extends Omit<WranglerBindings, RefinedBindings> {
  /**
   * "development" relaxes the production-only guards (loopback fetches and deliveries, the play-money
   * payment method, the demo hint on sign-in pages); unset or anything else is production (isProduction).
   */
  ENVIRONMENT?: string;
  /** Producer for deep crawls off the request path (queue "crawl-deep", consumer in src/engine/web/crawl/deep-crawl-queue.ts). */
  CRAWL_QUEUE?: Queue<DeepCrawlMessage>;
  /** Producer for request-log rows, written to D1 in batches (queue "request-logs", src/platform/request-log-queue.ts). */
  REQUEST_LOGS?: Queue<RequestLogMessage | RequestLogPacket>;
  /** Producer for chunks of bulk rows (queue "bulk-rows", consumer in src/bulk/consumer.ts). */
  BULK_QUEUE: Queue<BulkRowsMessage>;
  /** Producer for webhook deliveries, callbacks and bulk end events (queue "deliveries", consumer in src/delivery/queue.ts). */
  DELIVERY_QUEUE?: Queue<DeliveryMessage>;
  /** Shared secret for operator-only routes (claims, imports); unset means those routes answer 503. */
  OPERATOR_SECRET?: string;
  /** DNS-over-HTTPS JSON endpoint; default https://cloudflare-dns.com/dns-query. */
  DOH_URL?: string;
  /** Base URL of a self-hosted Reacher backend for the verifier's SMTP step; unset = SMTP check not run. */
  REACHER_URL?: string;
  /** Sent as `x-reacher-secret` when the Reacher backend requires it. */
  REACHER_SECRET?: string;
  /** Deferred SMTP checks and finder searches, tried again after a delay (queue "smtp-retries", src/engine/verify/smtp-retries.ts). */
  SMTP_RETRY_QUEUE?: Queue<SmtpRetryMessage>;
  /** One pacer per mail host (src/engine/verify/mail-host-pacer.ts). */
  MAIL_HOST_PACER?: DurableObjectNamespace<MailHostPacer>;
  /** Seconds an SMTP answer is reused for the same address (default 604800, 7 days). */
  SMTP_CACHE_SECONDS?: string;
  /** SMTP checks in flight at once per mail host (default 2). */
  SMTP_HOST_MAX_IN_FLIGHT?: string;
  /** SMTP checks started per minute per mail host (default 30). */
  SMTP_HOST_MAX_PER_MINUTE?: string;
  /** Waits in seconds before each background retry of a deferred check (default "300,900,3600"). */
  SMTP_RETRY_SECONDS?: string;
  /** Most a check waits for its mail host's pace before it is deferred instead (ms, default 10000). */
  SMTP_PACE_WAIT_MS?: string;
  /** HMAC secret binding MPP challenges (>= 32 bytes); unset means the paid endpoints answer 503. */
  MPP_SECRET_KEY?: string;
  /** Agent surface payment settings (src/agent/payment-config.ts documents each). */
  MPP_REALM?: string;
  /** "tempo" | "evm-dev" (default: tempo in production, evm-dev elsewhere). */
  MPP_METHOD?: string;
  TEMPO_RPC_URL?: string;
  TEMPO_RECIPIENT?: string;
  TEMPO_USDC_ADDRESS?: string;
  TEMPO_USDT_ADDRESS?: string;
  TEMPO_CHAIN_ID?: string;
  MPP_DEV_RECIPIENT?: string;
  /** Plan of the shared agents account (its rate limits apply to all agents together); default "scale". */
  AGENTS_PLAN?: string;
  /** First retry delay of a failed delivery in seconds, doubled per retry (default 30: 30 s, 60 s, 120 s). */
  DELIVERY_RETRY_BASE_SECONDS?: string;
  /** How long an isolate reuses the contact index's layout (ms, default 5000; src/db/shards.ts). */
  INDEX_LAYOUT_TTL_MS?: string;
  /** How long an isolate may reuse a claim lookup (ms, default 5000; "0" = read D1 every call). */
  CLAIMS_CACHE_TTL_MS?: string;
  /** Pins the OAuth issuer (e.g. https://api.example.com); unset = the request's origin (fine for dev, set it in production). */
  OAUTH_ISSUER?: string;
  /** Paid agent requests per minute per payer (src/agent/payer-limit.ts); default 60. */
  AGENT_PAYER_RPM?: string;
  /** API key of the transactional email service the dashboard mails its links through (src/dashboard/mailer.ts); unset outside production: links are printed. */
  MAIL_API_KEY?: string;
  /** Sender of the dashboard's mail, on a domain verified with the email service. */
  MAIL_FROM?: string;
  /** The email service's send endpoint; default Resend's (https://api.resend.com/emails). */
  MAIL_API_URL?: string;
  /** Origin put in mailed links (https://api.example.com); required in production. */
  APP_ORIGIN?: string;
  /** Seconds a sent bulk chunk may go unstarted or unfinished before its job's alarm sends it again (src/bulk/job-object.ts); default 300. */
  BULK_CHUNK_CLAIM_SECONDS?: string;
  /** The former name of BULK_CHUNK_CLAIM_SECONDS, read when that one is not set. */
  BULK_CHUNK_LEASE_SECONDS?: string;
}

export type AppBindings = { Bindings: Env; Variables: AppVariables };

export interface AppVariables {
  auth: AuthContext;
  requestStartedAt: number;
  /** Credit balances the limiter answered with the admission (tableLimit withBalances), read by /v1/me. */
  admittedBalances: Record<CreditBalance, BalanceView>;
  /** Filled by routes that belong to an endpoint group, read by the request logger. */
  logType?: string;
  /**
   * A credit-billed call's billing as its limiter decides it (src/limits/billing-decision.ts): the
   * log row's `cost` is written from it, once decided. Unset: not billed.
   */
  billing?: { whenDecided(followUp: (billed: boolean) => Promise<unknown>): Promise<unknown> | undefined };
  /**
   * Set when the request was answered 504 at its deadline (withDeadline) while its handler went on:
   * what the handler produces afterwards was never given (not charged, no callback).
   */
  pastDeadline?: boolean;
  /** Usage bucket (search, verifier, phones, ...) counted by /v1/usage when the call was billed. */
  usageCategory?: string;
  /** Query parameters the matched route declares (set by newApiApp); a log row stores only these. */
  declaredQuery?: readonly string[];
}

/**
 * Production unless ENVIRONMENT says exactly "development": a deploy that leaves it unset or
 * misspells it keeps every production guard (the strict egress guard, real-money payments only).
 * The local tooling (npm start, the tests, the benches, the scripts) sets "development".
 */
export function isProduction(env: Pick<Env, "ENVIRONMENT">): boolean {
  return env.ENVIRONMENT !== "development";
}
