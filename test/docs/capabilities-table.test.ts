import { describe, expect, it } from "vitest";
import apiDoc from "../../docs/api.md?raw";
import type { Capability } from "../../src/capabilities/core/registry.js";
import { CAPABILITIES } from "../../src/capabilities/index.js";

// docs/api.md's capability table is the documented price list; it must say what the registry says.
const ROW_LABEL: Record<string, string> = {
  search: "Domain search, email finder, similar, technology",
  verifier: "Email verifier",
  author: "Author finder",
  enrich: "/enrich",
  person_company: "Person, company, combined enrichment",
  phone: "Profile finder, phone finder, phone validator",
  location: "Location",
  count: "Email count",
  format: "Email format",
  sources: "Email sources",
  suggestions: "Domain suggestions",
  me: "/me",
};

function capabilityRow(cap: Capability): string {
  const paths = [...cap.paths, ...(cap.aliases ?? [])].map((p) => `\`/v1${p}\``).join(", ");
  const row = cap.rateGroup ? ROW_LABEL[cap.rateGroup] : "not rate-limited";
  const cost = cap.cost ? `${cap.cost.amount} ${cap.cost.balance}` : "free";
  const extra = cap.extraCostFor ? " (+1 phone with `enrich_mobile=true`)" : "";
  const exhausted = cap.exhaustedAs === "rate_limit" ? "; 429 when used up" : "";
  const agent = cap.agentPath ? `\`${cap.agentPath}\`` : "—";
  return `| ${paths} | ${row} | ${cost}${extra}${exhausted} | ${agent} |`;
}

describe("docs/api.md", () => {
  it("lists every capability with its paths, rate-limit row, credit cost and agent path", () => {
    const expected = CAPABILITIES.map(capabilityRow);
    const missing = expected.filter((row) => !apiDoc.includes(row));
    expect(missing, `docs/api.md rows to add or fix:\n${expected.join("\n")}`).toEqual([]);
  });
});
