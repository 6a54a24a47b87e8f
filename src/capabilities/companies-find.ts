import { z } from "@hono/zod-openapi";
import { companyOrFetch } from "../engine/company/facts.js";
import { domainParam } from "../engine/index/people.js";
import { defineCapability } from "./core/registry.js";
import { BULK_FIELDS, pick } from "./shapes/bulk-fields.js";
import { nullableRecord } from "./shapes/enrichment-params.js";
import { flatOrganization } from "./shapes/person.js";

export const companiesFind = defineCapability({
  name: "companies/find",
  label: "Company Enrichment",
  summary: "Company facts for a domain (flat organization)",
  tag: "Enrichment",
  paths: ["/companies/find"],
  agentPath: "/companies/find",
  params: z.object({ domain: z.string().min(1) }),
  rateGroup: "person_company",
  cost: { balance: "search", amount: 1 },
  usageCategory: "search",
  response: z.object({ data: z.object({ organization: nullableRecord }) }),
  bulk: {
    type: "company",
    label: "Company Enrichment",
    description: "Company facts for each domain",
    fields: [BULK_FIELDS.domain],
    primaryParam: "domain",
    requires: [["domain"]],
    options: [],
    paramsFor: (cells) => pick(cells, ["domain"]),
    resultColumns: {
      "organization.name": "organization.name",
      "organization.industries": "organization.industries",
      "organization.country": "organization.country",
      "organization.city": "organization.city",
      "organization.company_size": "organization.company_size",
      "organization.founded": "organization.founded",
      "organization.linkedin_url": "organization.linkedin_url",
    },
  },
  async handler(params, ctx) {
    // Unknown domains are crawled now (502/504 when the site cannot be read, 422 when the domain does not exist).
    const company = await companyOrFetch(ctx, domainParam(params.domain));
    return { body: { data: { organization: company ? flatOrganization(company) : null } }, found: company !== null };
  },
});
