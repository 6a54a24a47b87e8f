import { z } from "@hono/zod-openapi";
import { companyOrFetch } from "../engine/company/facts.js";
import { assertNotClaimed } from "../engine/index/claims.js";
import { emailParam, personByEmail } from "../engine/index/people.js";
import { defineCapability } from "./core/registry.js";
import { companyForPerson, withoutClaimedProfile } from "./enrich.js";
import { nullableRecord } from "./shapes/enrichment-params.js";
import { flatOrganization, personFindData } from "./shapes/person.js";

export const combinedFind = defineCapability({
  name: "combined/find",
  label: "Combined Enrichment",
  summary: "Person and company together, from an email address",
  tag: "Enrichment",
  paths: ["/combined/find"],
  params: z.object({ email: z.string().min(1) }),
  rateGroup: "person_company",
  cost: { balance: "search", amount: 1 },
  usageCategory: "search",
  response: z.object({
    data: z.object({ person: nullableRecord, company: z.object({ organization: nullableRecord }) }),
  }),
  async handler(params, ctx) {
    const email = emailParam(params.email);
    await assertNotClaimed(ctx.env, "email", email);
    const domain = email.slice(email.lastIndexOf("@") + 1);
    const stored = await personByEmail(ctx.env, email);
    const person = stored ? await withoutClaimedProfile(ctx.env, stored) : null;
    // With a known person the company is extra (an unreachable site leaves it null); without one
    // the company is the whole answer, so the crawler's 502/504/422 stand.
    const company = person ? await companyForPerson(ctx, domain) : await companyOrFetch(ctx, domain);
    return {
      body: {
        data: {
          person: person ? await personFindData(ctx.env, person, company) : null,
          company: { organization: company ? flatOrganization(company) : null },
        },
      },
      found: person !== null || company !== null,
    };
  },
});
