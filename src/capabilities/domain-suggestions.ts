import { z } from "@hono/zod-openapi";
import { onEveryIndex } from "../db/shards.js";
import { ApiError } from "../http/errors.js";
import { queryIntOr } from "../http/validation.js";
import { defineCapability } from "./core/registry.js";

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export const domainSuggestions = defineCapability({
  name: "domain-suggestions",
  label: "Domain Suggestions",
  summary: "Domains for a company name or a partial domain",
  tag: "Companies",
  paths: ["/domain-suggestions"],
  aliases: ["/domains-suggestion"],
  agentPath: "/domain-suggestions",
  params: z.object({
    query: z.string().min(1).max(75),
    limit: queryIntOr(10, { min: 1, max: 50 }),
  }),
  rateGroup: "suggestions",
  cost: null,
  usageCategory: "search",
  response: z.object({
    data: z.array(
      z.object({
        name: z.string().nullable(),
        domain: z.string(),
        website_url: z.string(),
        email_count: z.number().int(),
        logo: z.string().nullable(),
      }),
    ),
    meta: z.object({ query: z.string(), limit: z.number().int(), total_found: z.number().int() }),
  }),
  async handler(params, ctx) {
    const query = params.query
      .trim()
      .toLowerCase()
      .replace(/^https?:\/\//, "")
      .replace(/^www\./, "");
    if (query.length < 2)
      throw new ApiError(400, "params_invalid", "The parameter 'query' is invalid: give at least 2 characters.");
    const escaped = likeEscape(query);
    // Ranked: exact domain or name, then domains and names starting with the query, then names
    // containing it; within a rank, the domain with more known addresses first.
    const where = "(lower(c.name) LIKE ?2 ESCAPE '\\' OR c.domain LIKE ?3 ESCAPE '\\')";
    const args = [query, `%${escaped}%`, `${escaped}%`] as const;
    // Every index database gives its first `limit` and its count (in parallel); merged in the same
    // order, the first `limit` are those one database would give.
    const perIndex = await onEveryIndex(ctx.env, (index) =>
      Promise.all([
        index.$client
          .prepare(
            `SELECT c.name, c.domain, c.logo, (SELECT COUNT(*) FROM emails e WHERE e.domain = c.domain) AS email_count,
           CASE WHEN c.domain = ?1 OR lower(c.name) = ?1 THEN 0 WHEN c.domain LIKE ?3 ESCAPE '\\' OR lower(c.name) LIKE ?3 ESCAPE '\\' THEN 1 ELSE 2 END AS rank
         FROM companies c WHERE ${where}
         ORDER BY rank, email_count DESC, c.domain LIMIT ?4`,
          )
          .bind(...args, params.limit)
          .all<{ name: string | null; domain: string; logo: string | null; email_count: number; rank: number }>(),
        index.$client
          .prepare(`SELECT COUNT(*) AS n FROM companies c WHERE ${where}`)
          .bind(...args)
          .first<{ n: number }>(),
      ]),
    );
    const rows = perIndex
      .flatMap(([found]) => found.results)
      .sort(
        (a, b) =>
          a.rank - b.rank || b.email_count - a.email_count || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0),
      )
      .slice(0, params.limit);
    const total = perIndex.reduce((sum, [, count]) => sum + (count?.n ?? 0), 0);
    const data = rows.map((r) => ({
      name: r.name,
      domain: r.domain,
      website_url: r.domain,
      email_count: r.email_count,
      logo: r.logo,
    }));
    return {
      body: { data, meta: { query: params.query, limit: params.limit, total_found: total } },
      found: data.length > 0,
    };
  },
});
