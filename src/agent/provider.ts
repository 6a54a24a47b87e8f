import type { Challenge, Credential, Receipt } from "mppx";
import type { Mppx } from "mppx/server/core";

/**
 * The payment provider behind the gate: issues challenges, validates credentials (no money moves)
 * and settles them (money moves). The gate only talks to this interface, so tests can wrap the real
 * mppx-backed provider and inject faults (unreachable network, misconfiguration).
 *
 * Only types come from mppx here: the payment stack itself is loaded on first use
 * (src/payment-vendor.ts), and whoever builds a provider hands it the mppx instance.
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

/** Builds the provider on an mppx server instance whose methods all share one wire name. */
export function mppxProvider<M extends Mppx.Methods>(opts: {
  mppx: Mppx.Mppx<M>;
  method: string;
  label?: string;
  currencies: readonly CurrencyOffer[];
}): PaymentProvider {
  const { mppx, method } = opts;
  // why: mppx types `challenge` per configured method tuple; a provider for any method indexes it by wire name (mppx typing).
  type Charge = { charge(o: Record<string, unknown>): Promise<Challenge.Challenge> };
  const charge = (mppx.challenge as unknown as Record<string, Charge | undefined>)[method];
  if (!charge) throw new Error(`The mppx instance has no payment method '${method}'.`);
  const challengeFn = charge.charge;
  const route = (offer: Offer, currency: CurrencyOffer) => ({
    request: {
      amount: offer.amount,
      currency: currency.address,
      decimals: currency.decimals,
      description: offer.description,
    },
    scope: offer.endpoint,
  });
  return {
    method,
    label: opts.label,
    currencies: opts.currencies,
    challenge: (offer, currency) =>
      challengeFn({
        amount: offer.amount,
        currency: currency.address,
        decimals: currency.decimals,
        description: offer.description,
        scope: offer.endpoint,
      }),
    async validate(credential, offer, currency) {
      const validation = await mppx.validateCredential(credential, route(offer, currency));
      const details = (validation as { details?: { payer?: string; sender?: string } }).details;
      const source = (validation as { source?: string }).source;
      return { payer: details?.payer ?? details?.sender ?? source ?? credential.source ?? null };
    },
    settle: (credential, offer, currency) => mppx.broadcastCredential(credential, route(offer, currency)),
  };
}
