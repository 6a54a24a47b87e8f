/** The payment stack's exports (src/vendor/payments-entry.ts). */
export type PaymentVendor = typeof import("./vendor/payments.mjs");

/**
 * Loads the payment stack, once per isolate (the runtime caches the module). It is a separate
 * module of the upload (wrangler.toml `find_additional_modules` and its ESModule rule), so an
 * isolate that never takes a payment never parses it.
 *
 * This file sits beside src/index.ts on purpose: wrangler keeps an additional module's import path
 * as written and the runtime resolves it against the entry module, so the import only works from
 * this directory.
 */
export function loadPaymentVendor(): Promise<PaymentVendor> {
  return import("./vendor/payments.mjs");
}
