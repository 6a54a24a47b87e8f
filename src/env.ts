/** Bindings and variables the Worker is given (wrangler.toml, .dev.vars, secrets). */
export interface Env {
  DB: D1Database;
  /** Per-account rate-limit counters and credit balances (src/limits/account-limiter.ts). */
  ACCOUNT_LIMITER: DurableObjectNamespace<import("./limits/account-limiter.js").AccountLimiter>;
  /** "production" turns on production-only guards (private-address fetch ban, no dev payment method). */
  ENVIRONMENT?: string;
  /** Shared secret for operator-only routes (claims, imports); unset means those routes answer 503. */
  OPERATOR_SECRET?: string;
  /** DNS-over-HTTPS JSON endpoint; default https://cloudflare-dns.com/dns-query. */
  DOH_URL?: string;
  /** Producer for deep crawls off the request path (queue "crawl-deep", consumer in src/engine/crawl/queue.ts). */
  CRAWL_QUEUE?: Queue<import("./engine/crawl/queue.js").DeepCrawlMessage>;
  /** Producer for request-log rows, written to D1 in batches (queue "request-logs", src/account/request-log-queue.ts). */
  REQUEST_LOGS?: Queue<import("./account/request-log-queue.js").RequestLogMessage>;
  /** Base URL of a self-hosted Reacher backend for the verifier's SMTP step; unset = SMTP check not run. */
  REACHER_URL?: string;
  /** Sent as `x-reacher-secret` when the Reacher backend requires it. */
  REACHER_SECRET?: string;
  /** Agent surface (src/agent/payment-config.ts documents each): payment claims and ledger. */
  PAYMENT_LEDGER?: DurableObjectNamespace<import("./agent/ledger.js").PaymentLedger>;
  /** HMAC secret binding MPP challenges (>= 32 bytes); unset means the paid endpoints answer 503. */
  MPP_SECRET_KEY?: string;
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
  /** Bulk jobs (src/bulk): uploaded CSVs, normalised input chunks and result parts. */
  BULK_FILES: R2Bucket;
  /** One BulkJob per job: state machine, history, idempotent row results. */
  BULK_JOB: DurableObjectNamespace<import("./bulk/job-object.js").BulkJob>;
  /** Producer for chunks of bulk rows (queue "bulk-rows", consumer in src/bulk/consumer.ts). */
  BULK_QUEUE: Queue<import("./bulk/consumer.js").BulkRowsMessage>;
  /** Producer for webhook deliveries, callbacks and bulk end events (queue "deliveries", consumer in src/delivery/queue.ts). */
  DELIVERY_QUEUE?: Queue<import("./delivery/types.js").DeliveryMessage>;
  /** First retry delay of a failed delivery in seconds, doubled per retry (default 30: 30 s, 60 s, 120 s). */
  DELIVERY_RETRY_BASE_SECONDS?: string;
  /** How long an isolate may reuse a claim lookup (ms, default 5000; "0" = read D1 every call). */
  CLAIMS_CACHE_TTL_MS?: string;
  /** OAuth 2.0 clients, grants and tokens, owned by @cloudflare/workers-oauth-provider (src/oauth/). */
  OAUTH_KV: KVNamespace;
  /** Pins the OAuth issuer (e.g. https://api.example.com); unset = the request's origin (fine for dev, set it in production). */
  OAUTH_ISSUER?: string;
  /** Paid agent requests per minute per payer (src/agent/payer-limit.ts); default 60. */
  AGENT_PAYER_RPM?: string;
}

export type AppBindings = { Bindings: Env; Variables: AppVariables };

export interface AppVariables {
  auth: import("./account/auth.js").AuthContext;
  requestStartedAt: number;
  /** Credit balances the limiter answered with the admission (tableLimit withBalances), read by /v1/me. */
  admittedBalances: Record<"search" | "verification" | "phone", import("./limits/account-limiter.js").BalanceView>;
  /** Filled by routes that belong to an endpoint group, read by the request logger. */
  logType?: string;
  logCost?: boolean;
  /** Usage bucket (search, verifier, phones, ...) counted by /v1/usage when logCost is true. */
  usageCategory?: string;
}

export function isProduction(env: Pick<Env, "ENVIRONMENT">): boolean {
  return env.ENVIRONMENT === "production";
}
