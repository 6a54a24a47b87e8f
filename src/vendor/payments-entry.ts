/**
 * The payment stack (mppx, viem and their dependencies), built by scripts/build-payment-vendor.mjs
 * into its own module, src/vendor/payments.mjs, which the Worker imports dynamically the first
 * time a request needs payments (src/payment-vendor.ts). Bundled into the Worker's main module it
 * would be two thirds of its JavaScript, parsed on every isolate start even when never used.
 *
 * Export here only what src/agent needs at run time; the Worker's own code stays out (a second
 * copy of a module with state, such as request-context's AsyncLocalStorage, would not see the
 * first one's). Named exports let the bundler drop the parts of mppx/server nobody uses.
 */
export { Challenge, Credential, Errors, Mcp, Receipt } from "mppx";
// The client side, for the dashboard's development wallet only (src/dashboard/dev-wallet.ts; never
// in production): it signs the development method's credentials for a person's local top-up.
export { evm as evmClient, Mppx as MppxClient } from "mppx/client";
export { charge as evmCharge } from "mppx/evm/server";
export { tempo } from "mppx/server";
export { Mppx } from "mppx/server/core";
export { createClient, http } from "viem";
export { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
export { tempo as tempoChain } from "viem/chains";
