/**
 * Stand-in for `@modelcontextprotocol/sdk/types.js`, which mppx/server imports lazily for its MCP
 * transports only. This Worker serves payments over HTTP, so that code path never runs; aliasing
 * the module (wrangler.toml [alias]) keeps the bundle from needing the whole SDK.
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
