import { priceFor } from "../agent/prices.js";
import type { AnyCapability } from "../capabilities/core/registry.js";
import { type McpSurface, toolName } from "./tools.js";

export const CATALOGUE_URI = "contact-intelligence://catalogue";

/** Every tool with its REST twin and what it costs on each surface (the catalogue resource). */
export function catalogueDocument(capabilities: readonly AnyCapability[], surface: McpSurface) {
  return {
    surface:
      surface === "account"
        ? "account API (/v1/mcp): billed to your account's credits"
        : "agent surface (/mcp): paid per call with MPP",
    tools: capabilities.map((cap) => {
      const price = cap.agentPath ? priceFor(cap.agentPath) : undefined;
      return {
        tool: toolName(cap),
        title: cap.label,
        summary: cap.summary,
        rest: { account_api: `GET /v1${cap.paths[0]}`, ...(price ? { agent_surface: `GET ${cap.agentPath}` } : {}) },
        credits: cap.cost ? { balance: cap.cost.balance, per_found_answer: cap.cost.amount } : null,
        agent_price_usd: price ?? null,
      };
    }),
  };
}
