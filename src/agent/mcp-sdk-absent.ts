/**
 * Stand-in for `@modelcontextprotocol/sdk/types.js`, which mppx/server imports lazily for its MCP
 * transports only. The Worker takes payments through src/agent (HTTP, and MCP through the same
 * provider), never through mppx's transports, so that code path never runs; the payment stack's
 * build (scripts/build-payment-vendor.mjs) substitutes this file for the SDK module.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "McpError";
  }
}
