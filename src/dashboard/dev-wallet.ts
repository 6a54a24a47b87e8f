import { DEV_AUTHORIZATION, DEV_CHAIN_ID, DEV_TOKENS } from "../agent/dev-chain.js";
import { type Env, isProduction } from "../env.js";
import { loadPaymentVendor } from "../payment-vendor.js";

/**
 * The development wallet: outside production, the dashboard pays a top-up itself with the
 * development payment method (a throwaway key signing EIP-3009 authorizations on chain 31337, tokens
 * that hold no real funds), so a person can try the whole purchase locally. The credential it makes
 * is checked, held and settled by the same gate as an agent's. In production there is no such
 * wallet: a buyer pays from their own MPP client (docs/plans.md).
 */
export const devWalletAvailable = (env: Env) => !isProduction(env);

/** A credential answering one of the 402's challenges (the first currency it offers). */
export async function payWithDevWallet(env: Env, unpaid: Response): Promise<string> {
  if (!devWalletAvailable(env)) throw new Error("the development wallet is refused in production");
  const { MppxClient, evmClient, generatePrivateKey, privateKeyToAccount } = await loadPaymentVendor();
  const client = MppxClient.create({
    polyfill: false,
    methods: [
      evmClient({
        account: privateKeyToAccount(generatePrivateKey()),
        authorization: DEV_AUTHORIZATION,
        networks: [DEV_CHAIN_ID],
        currencies: [DEV_TOKENS.USDC, DEV_TOKENS.USDT],
      }),
    ],
  } as never) as unknown as { createCredential(response: Response): Promise<string> };
  return client.createCredential(unpaid);
}
