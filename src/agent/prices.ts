/**
 * What one paid call costs on the agent surface, per endpoint, in US dollars (display units: both
 * accepted stablecoins, USDC and USDT, use 6 decimals, so "0.01" is 10000 base units of either).
 * This is the only place prices live: the 402 challenges, the credential checks and the discovery
 * documents all read it. An endpoint missing here is not sold, even if its capability has an
 * agentPath (test/agent/prices.test.ts fails when that happens).
 */
export const AGENT_PRICES_USD = {
  "domain-search": "0.05",
  "email-finder": "0.03",
  "email-verifier": "0.01",
  "email-count": "0.002",
  "email-sources": "0.02",
  "email-format": "0.01",
  "author-finder": "0.03",
  enrich: "0.05",
  "professional-network": "0.05",
  "phone-finder": "0.08",
  "phone-validator": "0.005",
  similar: "0.02",
  location: "0.01",
  "people/find": "0.05",
  "companies/find": "0.05",
  "domain-status": "0.001",
  "domain-suggestions": "0.005",
} as const satisfies Record<string, string>;

export type PricedEndpoint = keyof typeof AGENT_PRICES_USD;

/** The accepted stablecoins share this precision; amounts on the wire are base units of it. */
export const STABLECOIN_DECIMALS = 6;

/** Price of an agent path ("/email-verifier" or "email-verifier"), undefined when not sold. */
export function priceFor(agentPath: string): string | undefined {
  const key = agentPath.replace(/^\//, "");
  return (AGENT_PRICES_USD as Record<string, string>)[key];
}

/** "0.01" -> "10000": the digit string MPP offers carry. */
export function toBaseUnits(usd: string, decimals = STABLECOIN_DECIMALS): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(usd);
  if (!match) throw new Error(`Price '${usd}' is not a plain decimal.`);
  const [, whole = "", frac = ""] = match;
  if (frac.length > decimals) throw new Error(`Price '${usd}' has more than ${decimals} decimals.`);
  return (BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, "0") || "0")).toString();
}
