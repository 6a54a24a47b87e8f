import { createRoute, z } from "@hono/zod-openapi";
import { checkCallbackUrl, scheduleCallback, WebhookUrlParam } from "../../delivery/index.js";
import { parseFilters, searchCompanies } from "../../engine/company/search.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { fixedLimit } from "../../limits/middleware.js";

const FilterValue = z.object({ include: z.array(z.string()).optional(), exclude: z.array(z.string()).optional() });

const RevealBody = z.object({
  query: z
    .string()
    .max(1000)
    .optional()
    .openapi({ description: "Free text; companies mentioning more of its words rank higher" }),
  filters: z
    .record(z.string(), z.unknown())
    .optional()
    .openapi({
      description:
        "{name: {include[], exclude[]}} for company, location_country, location_city, location_state, industry, size, type, keywords, founded, technologies, similar, revenue, sic, naics; flat or nested under filters.company",
      example: { location_country: { include: ["US"] }, industry: { include: ["Computer Software"], exclude: [] } },
    }),
  page: z.number().int().min(1).max(1000).optional(),
  limit: z.number().int().min(1).max(100).optional(),
  _source: z.array(z.string()).optional().openapi({ description: "Only these company fields" }),
  webhook_url: WebhookUrlParam,
});

const RevealCompany = z.record(z.string(), z.unknown());
const RevealMeta = z.object({
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  pages: z.number().int(),
  filters: z.record(z.string(), FilterValue),
});

const route = createRoute({
  method: "post",
  path: "/reveal/search",
  tags: ["Companies"],
  security,
  middleware: fixedLimit({ name: "reveal", limit: 5, windowMs: 1_000, scope: "account", methods: ["POST"] }),
  summary: "Search companies with include/exclude filters",
  request: { body: { required: true, content: { "application/json": { schema: RevealBody } } } },
  responses: {
    200: {
      description: "Matching companies",
      content: {
        "application/json": {
          schema: z.object({
            success: z.boolean(),
            data: z.object({
              companies: z.array(RevealCompany),
              total: z.number().int(),
              page: z.number().int(),
              limit: z.number().int(),
              pages: z.number().int(),
            }),
            meta: RevealMeta,
            message: z.string(),
          }),
        },
      },
    },
    ...ErrorResponses,
  },
});

/**
 * POST /v1/reveal/search: company search over the index (docs/wire-contract.md §8.3); authenticated like all of
 * /v1, 5/s fixed limit.
 */
export function registerRevealRoute(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    c.set("logType", "Reveal Search");
    const body = c.req.valid("json");
    const callbackUrl = await checkCallbackUrl(c.env, body.webhook_url);
    const filters = parseFilters(body.filters);
    const page = body.page ?? 1;
    const limit = body.limit ?? 10;
    const { total, companies } = await searchCompanies(c.env, { query: body.query, filters, page, limit });
    const pages = Math.ceil(total / limit);
    const source = body._source;
    const projected = source?.length
      ? companies.map((co) => Object.fromEntries(Object.entries(co).filter(([k]) => source.includes(k))))
      : companies;
    const answer = {
      success: true,
      data: { companies: projected, total, page, limit, pages },
      meta: { total, page, limit, pages, filters },
      message:
        total === 0 ? "No company matches these filters." : `Found ${total} ${total === 1 ? "company" : "companies"}.`,
    };
    if (callbackUrl)
      scheduleCallback(c.env, (p) => c.executionCtx.waitUntil(p), {
        accountId: c.get("auth").account.id,
        url: callbackUrl,
        endpoint: c.req.path,
        body: answer,
      });
    return c.json(answer, 200);
  });
}
