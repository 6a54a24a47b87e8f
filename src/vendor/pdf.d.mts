// Types of the generated pdf.mjs: the entry it is built from.
export * from "./pdf-entry.js";
