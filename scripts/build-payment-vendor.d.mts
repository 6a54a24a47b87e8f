/** Builds src/vendor/payments.mjs; resolves true when it changed on disk. */
export function buildPaymentVendor(): Promise<boolean>;
export const VENDOR_OUTPUT: string;
