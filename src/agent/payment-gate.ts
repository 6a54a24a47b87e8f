import type { Credential, Errors, Receipt } from "mppx";
import { executeCapability } from "../capabilities/core/execute.js";
import type { Capability } from "../capabilities/core/registry.js";
import type { Env } from "../env.js";
import { errorBody } from "../http/errors.js";
import { describeIssue } from "../http/validation.js";
import { logError } from "../request-context.js";
import { agentsAccountId, agentsPlan } from "./agents-account.js";
import { FORWARDED_HEADERS } from "./forwarded-headers.js";
import type { HoldOutcome } from "./ledger.js";
import type { Ledger } from "./ledger-client.js";
import { admitPayer } from "./payer-limit.js";
import { loadPaymentWire, type PaymentWire } from "./payment-wire.js";
import { priceFor } from "./prices.js";
import {
  type CurrencyOffer,
  type Offer,
  PaymentGateUnavailable,
  type PaymentProvider,
  PaymentProviderFault,
} from "./provider.js";
import { gateUnavailable, providerFault } from "./responses.js";
import { unbilledRunsRefusal, unbilledRunsResponse } from "./unbilled-runs.js";

export interface GateDeps {
  /** Throws PaymentGateUnavailable when the deployment cannot take payments. `host` picks the default realm. */
  provider(env: Env, host: string): PaymentProvider | Promise<PaymentProvider>;
  ledger(env: Env): Ledger;
  /** How long a request waits for a concurrent use of the same credential to finish. */
  busyWaitMs?: number;
  /** The clock the ledger judges holds by (tests move it past the unbilled-runs window). */
  now?: () => number;
}

export interface PaidRequest {
  env: Env;
  query: Record<string, string>;
  /** Host name the agent called (the default challenge realm). */
  host: string;
  authorization: string | undefined;
  /** cf-connecting-ip, for the per-payer limit when the payment names no payer. */
  clientIp?: string;
  waitUntil(p: Promise<unknown>): void;
}

/**
 * One paid call: challenge, or validate -> hold -> run the capability as the agents account ->
 * settle only for a 200. Every exit that does not settle gives the hold back, so the same
 * credential can pay for a later request.
 */
export async function servePaid(cap: Capability, req: PaidRequest, deps: GateDeps): Promise<Response> {
  const endpoint = cap.agentPath;
  if (endpoint === undefined) throw new Error(`${cap.name} has no agent path: it is not sold to agents.`);
  return chargeFor(
    { endpoint, price: priceFor(endpoint), label: `${cap.label} (${endpoint})`, run: () => runAsAgents(cap, req) },
    req,
    deps,
  );
}

/** What a payment buys: an answer the gate runs after validating the credential, paid only for a 200. */
export interface PaidWork {
  /** The challenge's scope: a credential bought for one endpoint is refused on another. */
  endpoint: string;
  /** Display units ("0.01"); none means the endpoint has no price configured. */
  price: string | undefined;
  label: string;
  /** Runs before the money moves: its 200 is what is paid for (anything else is not charged). */
  run(): Promise<Response>;
  /**
   * Runs once the money moved (a purchase delivers only what was paid for): its answer replaces
   * run's. It must not fail for a reason the buyer caused; run checks those first.
   */
  fulfil?(paid: Payment): Promise<Response>;
}

/** A settled payment, as a purchase records it. */
export interface Payment {
  challengeId: string;
  currencySymbol: string;
  method: string;
  reference: string;
}

/**
 * The payment gate around any work: the agent surface's capability calls, and the account API's
 * credit packs and plans (src/agent/routes/purchases.ts), paid with the same MPP method and currencies.
 */
export async function chargeFor(work: PaidWork, req: PaidRequest, deps: GateDeps): Promise<Response> {
  const { endpoint, price } = work;
  const now = deps.now ?? Date.now;
  if (!price) return gateUnavailable(`${endpoint} has no price configured.`, 300);

  let wire: PaymentWire;
  let provider: PaymentProvider;
  let ledger: Ledger;
  try {
    wire = await loadPaymentWire();
    provider = await deps.provider(req.env, req.host);
    ledger = deps.ledger(req.env);
  } catch (err) {
    return unavailable(err);
  }
  const offer: Offer = {
    endpoint,
    amount: price,
    description: `${work.label}${provider.label ? ` - ${provider.label}` : ""}`,
  };
  const challengeAgain = async (why: Errors.PaymentError) => {
    try {
      return await wire.paymentRequired(provider, offer, why);
    } catch (err) {
      return unavailable(err);
    }
  };

  const serialized = req.authorization ? wire.Credential.extractPaymentScheme(req.authorization) : null;
  if (!serialized) return challengeAgain(wire.paymentRequiredError(offer.description));
  let credential: Credential.Credential;
  try {
    credential = wire.Credential.deserialize(serialized);
  } catch {
    return challengeAgain(
      new wire.Errors.MalformedCredentialError({ reason: "it is not a base64url JSON Payment credential" }),
    );
  }
  const currency = offeredCurrency(provider, credential);
  if (!currency) {
    return challengeAgain(
      new wire.Errors.InvalidChallengeError({
        id: credential.challenge?.id,
        reason: `this endpoint accepts ${provider.method} payments in USDC or USDT only`,
      }),
    );
  }

  let payer: string | null;
  try {
    ({ payer } = await provider.validate(credential, offer, currency));
  } catch (err) {
    const kind = wire.classifyProviderError(err);
    if (kind instanceof wire.Errors.PaymentError) return challengeAgain(kind);
    return kind instanceof PaymentGateUnavailable ? unavailable(kind) : providerFault(kind.message);
  }

  const limited = await admitPayer(req.env, payer, req.clientIp);
  if (limited) return limited;

  const holdId = credential.challenge.id;
  const expiresAt = Date.parse(credential.challenge.expires ?? "") || Date.now() + 10 * 60_000;
  let hold: HoldOutcome;
  try {
    hold = await holdOrWait(ledger, holdId, expiresAt, deps.busyWaitMs ?? 5_000, now);
  } catch (err) {
    logError("payment ledger unavailable", err);
    return gateUnavailable("The payment ledger is unavailable; your credential was not used. Retry shortly.", 5);
  }
  if (hold.status === "spent") {
    return challengeAgain(
      new wire.Errors.InvalidChallengeError({ id: holdId, reason: "this credential already paid for an answer" }),
    );
  }
  if (hold.status === "unbilled_limit") return unbilledRunsResponse(unbilledRunsRefusal(hold));
  if (hold.status === "busy") {
    return gateUnavailable(
      "This credential is being used by another request right now; it was not charged. Retry shortly.",
      1,
    );
  }

  let settled = false;
  let ranUnbilled = false;
  try {
    let upstream: Response;
    try {
      upstream = await work.run();
    } catch (err) {
      logError("agent call failed before the capability answered", err);
      return gateUnavailable(
        "The service could not run this request; your credential was not charged. Retry shortly.",
        5,
      );
    }
    if (upstream.status !== 200) {
      ranUnbilled = true;
      return unbilled(upstream);
    }

    let receipt: Receipt.Receipt;
    try {
      receipt = await provider.settle(credential, offer, currency);
    } catch (err) {
      const kind = wire.classifyProviderError(err);
      if (kind instanceof wire.Errors.PaymentError) return challengeAgain(kind);
      return kind instanceof PaymentGateUnavailable
        ? unavailable(kind)
        : providerFault(
            `The payment could not be settled, so the answer is withheld and nothing was charged: ${kind.message}`,
          );
    }
    settled = true;
    try {
      const recorded = await ledger.settle(hold.token, {
        holdId,
        endpoint,
        amount: String((credential.challenge.request as { amount?: unknown }).amount ?? ""),
        currency: currency.address,
        currencySymbol: currency.symbol,
        method: provider.method,
        payer,
        reference: receipt.reference,
      });
      if (!recorded.settled) logError("settled a credential whose hold was no longer ours", holdId);
    } catch (err) {
      // The money moved; the hold stays until the credential expires, so it cannot pay twice.
      logError("settlement not recorded in the ledger", holdId, err);
    }
    if (work.fulfil) {
      const payment = {
        challengeId: holdId,
        currencySymbol: currency.symbol,
        method: provider.method,
        reference: receipt.reference,
      };
      try {
        upstream = await work.fulfil(payment);
      } catch (err) {
        // The money moved: the buyer keeps the receipt, and the failure is ours to put right.
        logError("a paid purchase could not be delivered", holdId, receipt.reference, err);
        // MPP puts no receipt on an error answer; the reference in its message is the buyer's proof.
        const failed = jsonResponse(
          500,
          errorBody(
            500,
            "server_error",
            `Your payment (${receipt.reference}) went through but the purchase could not be delivered; contact support with this reference.`,
          ),
        );
        failed.headers.set("x-payment-charged", "true");
        return failed;
      }
    }
    return paid(upstream, wire.Receipt.serialize(receipt));
  } finally {
    if (!settled) {
      try {
        await ledger.release(holdId, hold.token, ranUnbilled, now());
      } catch (err) {
        logError("hold release failed; the credential stays blocked until it expires", holdId, err);
      }
    }
  }
}

function offeredCurrency(provider: PaymentProvider, credential: Credential.Credential): CurrencyOffer | undefined {
  const challenge = credential.challenge as
    | { method?: string; intent?: string; request?: { currency?: unknown } }
    | undefined;
  if (challenge?.method !== provider.method || challenge.intent !== "charge") return undefined;
  const wanted = typeof challenge.request?.currency === "string" ? challenge.request.currency.toLowerCase() : "";
  return provider.currencies.find((c) => c.address.toLowerCase() === wanted);
}

async function holdOrWait(
  ledger: Ledger,
  id: string,
  expiresAt: number,
  waitMs: number,
  now: () => number,
): Promise<HoldOutcome> {
  const deadline = Date.now() + waitMs;
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    const outcome = await ledger.hold(id, expiresAt, now());
    if (outcome.status !== "busy" || Date.now() + delay > deadline) return outcome;
    await new Promise((r) => setTimeout(r, delay));
  }
}

async function runAsAgents(cap: Capability, req: PaidRequest): Promise<Response> {
  const parsed = cap.params.safeParse(req.query);
  // Spec: missing or invalid data is an upstream 422, unbilled.
  if (!parsed.success)
    return jsonResponse(422, errorBody(422, "params_invalid", describeIssue(parsed.error, req.query, "query")));
  const accountId = await agentsAccountId(req.env);
  const { response } = await executeCapability(cap, parsed.data as Record<string, unknown>, {
    env: req.env,
    waitUntil: req.waitUntil,
    accountId,
    plan: agentsPlan(req.env),
    surface: "agent",
  });
  return response;
}

/** Not billed: 422 and 429 as the spec names them; other upstream failures pass through. */
async function unbilled(upstream: Response): Promise<Response> {
  let status = upstream.status;
  let body = await upstream.text();
  if (status === 400) {
    // The account API's 400 params_invalid is the agent surface's "upstream rejected" 422.
    status = 422;
    body = rewriteCode(body, 422);
  } else if (status === 402) {
    // The shared agents account ran out of credits: our problem, not a payment request.
    logError("agents account credits exhausted");
    return gateUnavailable("The service cannot fulfil paid requests right now; your credential was not charged.", 60);
  }
  const headers = forwarded(upstream.headers);
  headers.set("x-payment-charged", "false");
  headers.set("content-type", upstream.headers.get("content-type") ?? "application/json; charset=utf-8");
  return new Response(body, { status, headers });
}

function paid(upstream: Response, receiptHeader: string): Response {
  const headers = forwarded(upstream.headers);
  headers.set("content-type", upstream.headers.get("content-type") ?? "application/json; charset=utf-8");
  headers.set("payment-receipt", receiptHeader);
  headers.set("x-payment-charged", "true");
  headers.set("cache-control", "private, no-store");
  return new Response(upstream.body, { status: 200, headers });
}

function forwarded(source: Headers): Headers {
  const out = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = source.get(name);
    if (value !== null) out.set(name, value);
  }
  return out;
}

function rewriteCode(body: string, status: number): string {
  try {
    const parsed = JSON.parse(body) as { errors?: { code?: number } };
    if (parsed.errors) parsed.errors.code = status;
    return JSON.stringify(parsed);
  } catch {
    return body;
  }
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8" } });
}

function unavailable(err: unknown): Response {
  if (err instanceof PaymentGateUnavailable) {
    logError("payment gate unavailable:", err.message);
    return gateUnavailable("The payment gate is unavailable; nothing was charged. Retry later.", err.retryAfterSeconds);
  }
  if (err instanceof PaymentProviderFault) return providerFault(err.message);
  logError("payment gate error", err);
  return gateUnavailable("The payment gate is unavailable; nothing was charged. Retry later.", 30);
}
