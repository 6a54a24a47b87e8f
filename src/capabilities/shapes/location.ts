import { z } from "@hono/zod-openapi";
import { indexFor } from "../../db/shards.js";
import { domainParam } from "../../engine/index/people.js";
import { defineCapability } from "../core/registry.js";

export const location = defineCapability({
  name: "location",
  label: "Location",
  summary: "Where a domain's people are: count of known people per country",
  tag: "Companies",
  paths: ["/location"],
  agentPath: "/location",
  params: z.object({ domain: z.string().min(1) }),
  rateGroup: "location",
  cost: { balance: "search", amount: 1 },
  exhaustedAs: "rate_limit",
  usageCategory: "search",
  response: z.object({
    data: z.array(z.object({ name: z.string().openapi({ description: "ISO 3166 alpha-2" }), total: z.number().int() })),
  }),
  async handler(params, ctx) {
    const domain = domainParam(params.domain);
    // People without a known country are not counted anywhere rather than guessed from the TLD.
    const { results } = await (await indexFor(ctx.env, domain)).$client
      .prepare(
        "SELECT country AS name, COUNT(*) AS total FROM people WHERE domain = ? AND country IS NOT NULL GROUP BY country ORDER BY total DESC, country",
      )
      .bind(domain)
      .all<{ name: string; total: number }>();
    return { body: { data: results }, found: results.length > 0 };
  },
});
