import { z } from "@hono/zod-openapi";
import { similarCompanies } from "../engine/company/similar.js";
import { domainParam } from "../engine/index/people.js";
import { queryIntOr } from "../http/validation.js";
import { defineCapability } from "./core/registry.js";
import { BULK_FIELDS, pick } from "./shapes/bulk-fields.js";

export const similar = defineCapability({
  name: "similar",
  label: "Similar Domains",
  summary: "Domains similar to a domain (shared industry, keywords, technologies, profiles, location), paginated",
  tag: "Companies",
  paths: ["/similar"],
  agentPath: "/similar",
  params: z.object({
    domain: z.string().min(1),
    page: queryIntOr(1, { min: 1, max: 1000 }),
    limit: queryIntOr(10, { min: 1, max: 100 }),
  }),
  rateGroup: "search",
  cost: { balance: "search", amount: 1 },
  usageCategory: "similar",
  response: z.object({
    data: z.array(
      z.object({
        website_url: z.string(),
        name: z.string().nullable(),
        industries: z.string().nullable(),
        score: z.number().int(),
      }),
    ),
    meta: z.object({
      total: z.number().int(),
      page: z.number().int(),
      limit: z.number().int(),
      pageSize: z.number().int(),
      current: z.number().int(),
      total_pages: z.number().int(),
    }),
  }),
  bulk: {
    type: "similar",
    label: "Similar Domains",
    description: "Domains similar to each domain",
    fields: [BULK_FIELDS.domain],
    primaryParam: "domain",
    requires: [["domain"]],
    options: [],
    paramsFor: (cells) => pick(cells, ["domain"]),
    resultColumns: { website_url: "website_url" },
    isValid: (data) => Array.isArray(data) && data.length > 0,
  },
  async handler(params, ctx) {
    const domain = domainParam(params.domain);
    const all = (await similarCompanies(ctx.env, domain, { crawl: ctx })) ?? [];
    const { page, limit } = params;
    const slice = all.slice((page - 1) * limit, page * limit);
    return {
      body: {
        data: slice.map((c) => ({ website_url: c.domain, name: c.name, industries: c.industry, score: c.score })),
        // Both the reveal-style and the classic paging names, so either kind of client reads it.
        meta: {
          total: all.length,
          page,
          limit,
          pageSize: limit,
          current: page,
          total_pages: Math.ceil(all.length / limit),
        },
      },
      found: all.length > 0,
    };
  },
});
