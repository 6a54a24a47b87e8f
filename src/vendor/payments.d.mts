// Types of the generated payments.mjs: the entry it is built from.
export * from "./payments-entry.js";
