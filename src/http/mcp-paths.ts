/** Where the MCP endpoints live (a leaf module: discovery documents name them without importing the routes). */
export const MCP_PATHS = { agent: "/mcp", account: "/v1/mcp" } as const;

/** The MCP protocol revision the server negotiates with current clients (@modelcontextprotocol/sdk 1.32). */
export const MCP_PROTOCOL_REVISION = "2025-11-25";
