import { z } from "@hono/zod-openapi";
import { assertNotClaimed } from "../engine/claims.js";
import { emailParam, flatOrganization, personByEmail, personFindData } from "../engine/people-index.js";
import { companyForPerson, withoutClaimedProfile } from "./enrich.js";
import { nullableRecord } from "./enrichment-params.js";
import { defineCapability } from "./registry.js";

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
  response: z.object({ data: z.object({ person: nullableRecord, company: z.object({ organization: nullableRecord }) }) }),
  async handler(params, ctx) {
    const email = emailParam(params.email);
    await assertNotClaimed(ctx.env, "email", email);
    const [stored, company] = await Promise.all([personByEmail(ctx.env, email), companyForPerson(ctx.env, email.slice(email.lastIndexOf("@") + 1))]);
    const person = stored ? await withoutClaimedProfile(ctx.env, stored) : null;
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
