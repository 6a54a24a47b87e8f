/**
 * The development payment method: mppx's `evm` charge (EIP-3009 transfer authorizations, really
 * signed by the payer and really verified by the server) on a local chain id that no real network
 * uses, with token addresses that hold no real funds. Settlement writes to our own ledger only.
 * It is advertised as method "evm" on chain 31337, never as tempo, and refused in production.
 *
 * No imports: scripts/agent.mjs (plain Node) imports this file too.
 */
export const DEV_CHAIN_ID = 31337;

/** EIP-712 domain name/version the dev tokens sign under (both tokens share them). */
export const DEV_AUTHORIZATION = { name: "Development USD (no real funds)", version: "1" } as const;

/** Stand-in token contracts on the dev chain. */
export const DEV_TOKENS = {
  USDC: "0x00000000000000000000000000000000000d5dc1",
  USDT: "0x00000000000000000000000000000000000d5d71",
} as const;

/** Default payee on the dev chain when MPP_DEV_RECIPIENT is unset. */
export const DEV_RECIPIENT = "0x000000000000000000000000000000000000d0e5";

/** Names what the dev method is in every challenge description, so nobody mistakes it for money. */
export const DEV_METHOD_LABEL = "development payment (local chain 31337, no real funds)";
