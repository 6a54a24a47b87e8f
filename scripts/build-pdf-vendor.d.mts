/** Builds src/vendor/pdf.mjs; true when it changed on disk. */
export function buildPdfVendor(): Promise<boolean>;
export const PDF_VENDOR_OUTPUT: string;
