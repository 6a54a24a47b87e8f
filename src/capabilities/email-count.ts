import { z } from "@hono/zod-openapi";
import { filterClaimed } from "../engine/index/claims.js";
import { ensureIndexed } from "../engine/index/ensure-indexed.js";
import { emailsOfDomain } from "../engine/index/read.js";
import { DEPARTMENTS, SENIORITIES } from "../engine/people/positions.js";
import { defineCapability } from "./core/registry.js";
import { domainOrCompany, resolveTarget } from "./shapes/finder.js";

const zeroes = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

export const emailCount = defineCapability({
  name: "email-count",
  label: "Email Count",
  summary: "How many addresses the index holds for a domain, by type, department and seniority",
  tag: "Finder",
  paths: ["/email-count"],
  agentPath: "/email-count",
  params: z.object({ domain: domainOrCompany.domain }),
  rateGroup: "count",
  // Priced like a search (one search credit, refunded when the count is zero): the spec answers an
  // exhausted balance on this endpoint with 429, which only makes sense for a charged endpoint.
  cost: { balance: "search", amount: 1 },
  exhaustedAs: "rate_limit",
  usageCategory: "email_count",
  response: z
    .object({
      data: z.object({
        total: z.number().int(),
        personal_emails: z.number().int(),
        generic_emails: z.number().int(),
        department: z.record(z.string(), z.number().int()),
        seniority: z.record(z.string(), z.number().int()),
      }),
    })
    .openapi("EmailCount"),
  async handler(params, ctx) {
    const domain = await resolveTarget(ctx.env, params);
    await ensureIndexed(ctx, domain);
    const rows = await emailsOfDomain(ctx.env, domain);
    // Counts what domain search would list: claimed addresses are not counted.
    const visible = new Set(
      await filterClaimed(
        ctx.env,
        "email",
        rows.map((r) => r.email),
      ),
    );
    const department = zeroes(DEPARTMENTS);
    const seniority = zeroes(SENIORITIES);
    let personal = 0;
    let generic = 0;
    for (const r of rows) {
      if (!visible.has(r.email)) continue;
      if (r.type === "generic") generic++;
      else personal++;
      if (r.department && r.department in department) department[r.department as keyof typeof department]++;
      if (r.seniority && r.seniority in seniority) seniority[r.seniority as keyof typeof seniority]++;
    }
    const total = personal + generic;
    return {
      body: { data: { total, personal_emails: personal, generic_emails: generic, department, seniority } },
      found: total > 0,
    };
  },
});
