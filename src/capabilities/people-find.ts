import { z } from "@hono/zod-openapi";
import { assertNotClaimed, filterClaimed } from "../engine/index/claims.js";
import { domainParam, emailParam, leadCandidatesOfDomain, personByEmail } from "../engine/index/people.js";
import { ApiError } from "../http/errors.js";
import { defineCapability } from "./core/registry.js";
import { companyForPerson, withoutClaimedProfile } from "./enrich.js";
import { nullableRecord } from "./shapes/enrichment-params.js";
import { personFindData } from "./shapes/person.js";

export const peopleFind = defineCapability({
  name: "people/find",
  label: "Person Enrichment",
  summary: "A person: by email, or the lead person of a domain",
  tag: "Enrichment",
  paths: ["/people/find"],
  agentPath: "/people/find",
  params: z.object({
    domain: z.string().optional().openapi({ description: "Company domain: answers its most senior known person" }),
    email: z.string().optional(),
  }),
  rateGroup: "person_company",
  cost: { balance: "search", amount: 1 },
  usageCategory: "search",
  response: z.object({ data: nullableRecord }),
  async handler(params, ctx) {
    let email: string | undefined;
    if (params.email) {
      email = emailParam(params.email);
      await assertNotClaimed(ctx.env, "email", email);
    } else if (params.domain) {
      const domain = domainParam(params.domain);
      // Removed people are skipped for a domain question; asked by name (email) they answer 451.
      [email] = await filterClaimed(ctx.env, "email", await leadCandidatesOfDomain(ctx.env, domain));
    } else {
      throw new ApiError(400, "params_invalid", "Pass 'email' or 'domain'.");
    }
    const stored = email ? await personByEmail(ctx.env, email) : null;
    if (!stored) return { body: { data: null }, found: false };
    const person = await withoutClaimedProfile(ctx.env, stored);
    const company = await companyForPerson(ctx, person.domain);
    return { body: { data: await personFindData(ctx.env, person, company) }, found: true };
  },
});
