import { z } from "@hono/zod-openapi";
import { percentages } from "../engine/finder/patterns.js";
import { ensureIndexed } from "../engine/index/ensure-indexed.js";
import { domainRow, emailsOfDomain, formatsOf } from "../engine/index/read.js";
import { defineCapability } from "./core/registry.js";
import { domainOrCompany, resolveTarget } from "./shapes/finder.js";

export const emailFormat = defineCapability({
  name: "email-format",
  label: "Email Format",
  summary:
    "Address formats a domain uses ({first}.{last}, {f}{last}, ...), with integer percentages inferred from its published addresses",
  tag: "Finder",
  paths: ["/email-format"],
  // The reference service's Python client (1.0.5) calls /format?domain=.
  aliases: ["/format"],
  agentPath: "/email-format",
  params: z.object({ domain: domainOrCompany.domain }),
  rateGroup: "format",
  cost: { balance: "search", amount: 1 },
  exhaustedAs: "rate_limit",
  quotaHeaders: { limit: "X-Count-Limit", remaining: "X-Count-Remaining" },
  usageCategory: "search",
  response: z
    .object({ data: z.array(z.object({ format: z.string(), percentage: z.number().int() })) })
    .openapi("EmailFormat", {
      description: "Empty (and not billed) when the domain publishes no named personal address",
    }),
  async handler(params, ctx) {
    const domain = await resolveTarget(ctx.env, params);
    await ensureIndexed(ctx, domain);
    const dom = await domainRow(ctx.env, domain);
    // The rows are read only for a domain whose formats were not stored by a crawl.
    const inference = formatsOf(dom, dom?.formats ? [] : await emailsOfDomain(ctx.env, domain));
    const data = percentages(inference.shares);
    return { body: { data }, found: data.length > 0 };
  },
});
