import { type Env, isProduction } from "../env.js";
import { loadPaymentVendor } from "../payment-vendor.js";
import { perBinding } from "../platform/isolate-state.js";
import { DEV_AUTHORIZATION, DEV_CHAIN_ID, DEV_METHOD_LABEL, DEV_RECIPIENT, DEV_TOKENS } from "./dev-chain.js";
import { durableMppxStore } from "./ledger-client.js";
import { STABLECOIN_DECIMALS } from "./prices.js";
import { type CurrencyOffer, mppxProvider, PaymentGateUnavailable, type PaymentProvider } from "./provider.js";

/**
 * Which payment method the gate sells with, from configuration:
 *
 * | variable            | meaning                                                                   |
 * |---------------------|---------------------------------------------------------------------------|
 * | MPP_SECRET_KEY      | HMAC secret binding challenges (>= 32 bytes). Required.                  |
 * | MPP_REALM           | realm in challenges; default the request's host name                      |
 * | MPP_METHOD          | "tempo" or "evm-dev"; default tempo in production, evm-dev elsewhere      |
 * | TEMPO_RPC_URL       | Tempo JSON-RPC endpoint (tempo)                                           |
 * | TEMPO_RECIPIENT     | address that receives payments (tempo)                                    |
 * | TEMPO_USDC_ADDRESS  | USDC token; default mainnet USDC.e 0x20C0...8b50 (tempo)                  |
 * | TEMPO_USDT_ADDRESS  | USDT token (tempo; mppx has no default)                                   |
 * | TEMPO_CHAIN_ID      | default 4217 (Tempo mainnet)                                              |
 * | MPP_DEV_RECIPIENT   | payee on the dev chain (evm-dev); default a fixed dev address             |
 *
 * Misconfiguration never falls back to something else: the gate answers 503 until it is fixed.
 */
export type MethodChoice = "tempo" | "evm-dev";

const TEMPO_MAINNET_USDC = "0x20C000000000000000000000b9537d11c60E8b50";
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function chosenMethod(env: Env): MethodChoice {
  const wanted = env.MPP_METHOD?.trim();
  if (!wanted) return isProduction(env) ? "tempo" : "evm-dev";
  if (wanted !== "tempo" && wanted !== "evm-dev")
    throw new PaymentGateUnavailable(`MPP_METHOD '${wanted}' is not a payment method this service knows.`);
  return wanted;
}

const cache = perBinding<object, Map<string, Promise<PaymentProvider>>>("paymentProviders");
/** Host names come from the request: bound the per-isolate cache so junk Host headers cannot grow it. */
const MAX_REALMS_PER_ISOLATE = 8;

/**
 * The provider for this deployment, cached per isolate, env object and realm (challenges are
 * stateless, so any isolate can check any credential). The realm is MPP_REALM, else the host the
 * agent called: a credential bought on one host is refused on another.
 *
 * The one way to a payment provider, for every surface that sells (HTTP agent routes, MCP): the
 * first call in an isolate loads the payment stack (src/payment-vendor.ts), which the Worker does
 * not evaluate at startup.
 */
export function paymentProviderFor(env: Env, host = "localhost"): Promise<PaymentProvider> {
  const realm = env.MPP_REALM?.trim() || host;
  let byRealm = cache.get(env);
  if (!byRealm) {
    byRealm = new Map();
    cache.set(env, byRealm);
  }
  const cached = byRealm.get(realm);
  if (cached) return cached;
  const provider = buildProvider(env, realm);
  if (byRealm.size >= MAX_REALMS_PER_ISOLATE) byRealm.clear();
  byRealm.set(realm, provider);
  // A misconfiguration is not cached: fixing the variables takes effect without a redeploy race.
  provider.catch(() => byRealm.delete(realm));
  return provider;
}

async function buildProvider(env: Env, realm: string): Promise<PaymentProvider> {
  const secretKey = env.MPP_SECRET_KEY;
  if (!secretKey || new TextEncoder().encode(secretKey).length < 32) {
    throw new PaymentGateUnavailable(
      "The payment gate is not configured (MPP_SECRET_KEY missing or shorter than 32 bytes).",
    );
  }
  if (!env.PAYMENT_LEDGER) throw new PaymentGateUnavailable("The payment ledger is not bound (PAYMENT_LEDGER).");
  const method = chosenMethod(env);
  const { Mppx, createClient, evmCharge, http, tempo, tempoChain } = await loadPaymentVendor();

  if (method === "evm-dev") {
    // Never sell with play money where real money is expected.
    if (isProduction(env)) throw new PaymentGateUnavailable("The development payment method is refused in production.");
    const recipient = (env.MPP_DEV_RECIPIENT?.trim() || DEV_RECIPIENT) as `0x${string}`;
    if (!ADDRESS.test(recipient)) throw new PaymentGateUnavailable("MPP_DEV_RECIPIENT is not an address.");
    const currencies: CurrencyOffer[] = [
      { symbol: "USDC", address: DEV_TOKENS.USDC, decimals: STABLECOIN_DECIMALS },
      { symbol: "USDT", address: DEV_TOKENS.USDT, decimals: STABLECOIN_DECIMALS },
    ];
    const mppx = Mppx.create({
      realm,
      secretKey,
      methods: [
        evmCharge({
          currency: DEV_TOKENS.USDC,
          recipient,
          chainId: DEV_CHAIN_ID,
          decimals: STABLECOIN_DECIMALS,
          authorization: DEV_AUTHORIZATION,
          // Nothing is broadcast on a chain that does not exist: the reference is the signed
          // authorization's nonce (unique per challenge); the gate writes it to our ledger.
          settle: async ({ payload }) => ({ reference: `evm-dev:${payload.nonce}` }),
        }),
      ],
    });
    return mppxProvider({ mppx, method: "evm", label: DEV_METHOD_LABEL, currencies });
  }

  const rpcUrl = env.TEMPO_RPC_URL?.trim();
  const recipient = env.TEMPO_RECIPIENT?.trim();
  const usdc = env.TEMPO_USDC_ADDRESS?.trim() || TEMPO_MAINNET_USDC;
  const usdt = env.TEMPO_USDT_ADDRESS?.trim();
  const chainId = Number(env.TEMPO_CHAIN_ID?.trim() || tempoChain.id);
  const missing = [
    !rpcUrl && "TEMPO_RPC_URL",
    !(recipient && ADDRESS.test(recipient)) && "TEMPO_RECIPIENT",
    !ADDRESS.test(usdc) && "TEMPO_USDC_ADDRESS",
    !(usdt && ADDRESS.test(usdt)) && "TEMPO_USDT_ADDRESS",
    !Number.isInteger(chainId) && "TEMPO_CHAIN_ID",
  ].filter(Boolean);
  if (missing.length || !usdt)
    throw new PaymentGateUnavailable(`The Tempo payment method is not configured: ${missing.join(", ")}.`);
  const chain = { ...tempoChain, id: chainId };
  const mppx = Mppx.create({
    realm,
    secretKey,
    methods: [
      tempo.charge({
        currency: usdc as `0x${string}`,
        recipient: recipient as `0x${string}`,
        decimals: STABLECOIN_DECIMALS,
        // Replay markers of broadcast transactions live in the ledger objects, not in isolate memory.
        store: durableMppxStore(env.PAYMENT_LEDGER),
        getClient: () => createClient({ chain, transport: http(rpcUrl) }),
      }),
    ],
  });
  return mppxProvider({
    mppx,
    method: "tempo",
    currencies: [
      { symbol: "USDC", address: usdc, decimals: STABLECOIN_DECIMALS },
      { symbol: "USDT", address: usdt, decimals: STABLECOIN_DECIMALS },
    ],
  });
}
