import type { Challenge, Credential, Receipt } from "mppx";
import { Errors } from "mppx";
import type { Mppx } from "mppx/server/core";
import { logError } from "../request-context.js";

/**
 * The payment provider behind the gate: issues challenges, validates credentials (no money moves)
 * and settles them (money moves). The gate only talks to this interface, so tests can wrap the real
 * mppx-backed provider and inject faults (unreachable network, misconfiguration).
 *
 * Error contract, which decides what the agent is told:
 * - mppx `Errors.PaymentError`: the credential itself is wrong (402 with fresh challenges);
 * - `PaymentProviderFault`: the payment network could not be reached or answered garbage (502);
 * - `PaymentGateUnavailable`: the gate cannot take payments right now (503 + Retry-After).
 */
export interface PaymentProvider {
  /** Wire name of the method in challenges ("tempo", "evm"). */
  readonly method: string;
  /** Human-readable note added to challenge descriptions (e.g. that dev payments are not money). */
  readonly label?: string;
  /** Accepted currencies, in the order the challenges are presented. */
  readonly currencies: readonly CurrencyOffer[];
  challenge(offer: Offer, currency: CurrencyOffer): Promise<Challenge.Challenge>;
  /** Checks signature, amount, recipient, expiry and route scope. Returns who pays. */
  validate(credential: Credential.Credential, offer: Offer, currency: CurrencyOffer): Promise<{ payer: string | null }>;
  /** Moves the money (broadcast) and returns the receipt. */
  settle(credential: Credential.Credential, offer: Offer, currency: CurrencyOffer): Promise<Receipt.Receipt>;
}

export interface CurrencyOffer {
  symbol: "USDC" | "USDT";
  /** Token contract address. */
  address: string;
  decimals: number;
}

export interface Offer {
  /** Agent path, also the challenge scope: a credential bought for one endpoint is refused on another. */
  endpoint: string;
  /** Display units ("0.01"). */
  amount: string;
  description: string;
}

export class PaymentProviderFault extends Error {
  override name = "PaymentProviderFault";
}

export class PaymentGateUnavailable extends Error {
  override name = "PaymentGateUnavailable";
  constructor(
    message: string,
    readonly retryAfterSeconds = 30,
  ) {
    super(message);
  }
}

/** viem errors that mean "the network did not answer", as opposed to "this credential is bad". */
const TRANSPORT_ERRORS = new Set([
  "HttpRequestError",
  "TimeoutError",
  "RpcRequestError",
  "WebSocketRequestError",
  "SocketClosedError",
  "InternalRpcError",
  "LimitExceededRpcError",
  "ResourceUnavailableRpcError",
  "UnknownRpcError",
]);

function isTransportFault(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const name = (e as Error).name;
    if (TRANSPORT_ERRORS.has(name)) return true;
    // fetch() itself failing (DNS, connection reset) throws a TypeError in workerd.
    if (e instanceof TypeError && /fetch|network|connect/i.test(e.message)) return true;
  }
  return false;
}

/**
 * Sorts a thrown error into the contract above. Bad bytes inside a credential (viem parse errors,
 * schema errors) are the payer's problem (402); a network that does not answer is ours (502).
 * Anything else unexpected is treated as our fault too: a holder of a valid credential must never
 * be told to pay again because of a bug on our side.
 */
export function classifyProviderError(err: unknown): Errors.PaymentError | PaymentProviderFault | PaymentGateUnavailable {
  if (err instanceof Errors.PaymentError || err instanceof PaymentProviderFault || err instanceof PaymentGateUnavailable) return err;
  if (isTransportFault(err)) return new PaymentProviderFault(`The payment network could not be reached: ${(err as Error).message.split("\n")[0]}`);
  const name = (err as Error)?.name ?? "";
  if (name === "ZodError" || name === "$ZodError" || /Signature|Address|Hex|Abi|Bytes|Decode|Serialize/.test(name)) {
    return new Errors.VerificationFailedError({ reason: "the credential payload could not be verified" });
  }
  logError("payment provider error", err);
  return new PaymentProviderFault("The credential could not be validated because of a payment provider fault.");
}

/** Builds the provider on an mppx server instance whose methods all share one wire name. */
export function mppxProvider(opts: {
  mppx: Mppx.Mppx;
  method: string;
  label?: string;
  currencies: readonly CurrencyOffer[];
}): PaymentProvider {
  const { mppx, method } = opts;
  const challengeFn = (mppx.challenge as unknown as Record<string, { charge(o: Record<string, unknown>): Promise<Challenge.Challenge> }>)[method]!.charge;
  const route = (offer: Offer, currency: CurrencyOffer) => ({
    request: { amount: offer.amount, currency: currency.address, decimals: currency.decimals, description: offer.description },
    scope: offer.endpoint,
  });
  return {
    method,
    label: opts.label,
    currencies: opts.currencies,
    challenge: (offer, currency) =>
      challengeFn({ amount: offer.amount, currency: currency.address, decimals: currency.decimals, description: offer.description, scope: offer.endpoint }),
    async validate(credential, offer, currency) {
      const validation = await mppx.validateCredential(credential, route(offer, currency));
      const details = (validation as { details?: { payer?: string; sender?: string } }).details;
      const source = (validation as { source?: string }).source;
      return { payer: details?.payer ?? details?.sender ?? source ?? credential.source ?? null };
    },
    settle: (credential, offer, currency) => mppx.broadcastCredential(credential, route(offer, currency)),
  };
}
