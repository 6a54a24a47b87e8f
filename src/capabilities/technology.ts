import { z } from "@hono/zod-openapi";
import { indexWritersFor } from "../db/shards.js";
import { detectTechnologies } from "../engine/company/technology.js";
import { domainParam } from "../engine/index/people.js";
import { defineCapability } from "./core/registry.js";

const Category = z.object({ id: z.number().int(), slug: z.string(), name: z.string() });
const Technology = z.object({
  slug: z.string(),
  name: z.string(),
  icon: z.string().nullable(),
  website: z.string(),
  categories: z.array(Category),
});

export const technology = defineCapability({
  name: "technology",
  label: "Technology Lookup",
  summary: "Technologies a domain uses, from its site (headers, HTML, scripts) and DNS (MX, SPF, verification records)",
  tag: "Companies",
  paths: ["/technology"],
  params: z.object({ domain: z.string().min(1) }),
  rateGroup: "search",
  cost: { balance: "search", amount: 1 },
  usageCategory: "technologies",
  response: z.object({ domain: z.string(), data: z.array(Technology) }).openapi("TechnologyLookup"),
  async handler(params, ctx) {
    const domain = domainParam(params.domain);
    const found = await detectTechnologies(ctx.env, domain);
    if (found === null) return { body: { domain, data: [] }, found: false };
    // Remembered on the company row so company search can filter on technologies.
    for (const index of await indexWritersFor(ctx.env, domain))
      await index.$client
        .prepare(
          `INSERT INTO companies (domain, technologies, source, updated_at) VALUES (?1, ?2, 'crawl', ?3)
         ON CONFLICT(domain) DO UPDATE SET technologies = excluded.technologies`,
        )
        .bind(domain, JSON.stringify(found.map((t) => t.slug)), ctx.now())
        .run();
    return { body: { domain, data: found }, found: found.length > 0 };
  },
});
