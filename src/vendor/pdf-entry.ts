/**
 * PDF text (unpdf: PDF.js built for serverless runtimes), built by scripts/build-pdf-vendor.mjs into
 * its own module, src/vendor/pdf.mjs, which the deep crawl imports the first time it reads a PDF
 * (src/pdf-vendor.ts). Bundled into the Worker's main module it would be parsed on every isolate
 * start; as an additional module it costs only the upload (~0.5 MB gzip) until a PDF is read.
 */
export { getDocumentProxy } from "unpdf";
