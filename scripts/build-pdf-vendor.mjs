// Builds src/vendor/pdf.mjs, the PDF reader as its own module (see src/vendor/pdf-entry.ts). Run by
// wrangler before every build (wrangler.toml [build], after the payment vendor) and by the test
// config; it writes only when the output changes, so `wrangler dev` does not rebuild in a loop.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildVendorModule, root } from "./lib/vendor-module.mjs";

export const PDF_VENDOR_OUTPUT = path.join(root, "src", "vendor", "pdf.mjs");

/** Builds the module (unpdf imports its PDF.js build lazily; bundled here, one module holds both); true when it changed on disk. */
export async function buildPdfVendor() {
  return buildVendorModule({
    entry: "src/vendor/pdf-entry.ts",
    output: "src/vendor/pdf.mjs",
    script: "scripts/build-pdf-vendor.mjs",
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const changed = await buildPdfVendor();
  if (changed) console.log(`built ${path.relative(root, PDF_VENDOR_OUTPUT)}`);
}
