/** The PDF reader's exports (src/vendor/pdf-entry.ts). */
export type PdfVendor = typeof import("./vendor/pdf.mjs");

/**
 * Loads the PDF reader, once per isolate (the runtime caches the module). Only the deep crawl calls
 * this, when it holds a PDF: a separate module of the upload (wrangler.toml `find_additional_modules`
 * and its ESModule rule), never parsed by an isolate that serves /v1 requests.
 *
 * This file sits beside src/index.ts on purpose: wrangler keeps an additional module's import path
 * as written and the runtime resolves it against the entry module, so the import only works from
 * this directory.
 */
export function loadPdfVendor(): Promise<PdfVendor> {
  return import("./vendor/pdf.mjs");
}
