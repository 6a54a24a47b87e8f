import { z } from "@hono/zod-openapi";
import type { CrawlContext } from "../engine/company/facts.js";
import { companyOrFetch, hasFacts } from "../engine/company/facts.js";
import { assertNotClaimed, claimedAmong } from "../engine/index/claims.js";
import { type CompanyRecord, companyByDomain, emailParam, personByEmail } from "../engine/index/people.js";
import { phoneDataFor, phoneExtraCost } from "../engine/phones/phone-data.js";
import type { Env } from "../env.js";
import { apiErrorOf } from "../http/errors.js";
import { defineCapability } from "./core/registry.js";
import { BULK_FIELDS, BULK_OPTIONS, flag, pick } from "./shapes/bulk-fields.js";
import { enrichMobileParam, extraPhoneCost, nullableRecord } from "./shapes/enrichment-params.js";
import { storedPersonData } from "./shapes/person.js";

/**
 * The company behind a person's domain: the index, else the domain's own site. The person is the
 * definitive part of the answer, so an unreachable site leaves the company unknown instead of
 * failing the request.
 */
export async function companyForPerson(ctx: CrawlContext, domain: string): Promise<CompanyRecord | null> {
  try {
    return await companyOrFetch(ctx, domain);
  } catch (err) {
    if (apiErrorOf(err)) return null;
    throw err;
  }
}

/** A claimed profile URL is left out of an answer that is about something else. */
export async function withoutClaimedProfile<T extends { professionalNetworkUrl: string | null }>(
  env: Env,
  person: T,
): Promise<T> {
  if (!person.professionalNetworkUrl) return person;
  const claimed = await claimedAmong(env, "linkedin", [person.professionalNetworkUrl]);
  return claimed.size ? { ...person, professionalNetworkUrl: null } : person;
}

export const enrich = defineCapability({
  acceptsCallback: true,
  name: "enrich",
  label: "Email Enrichment",
  summary: "Person and company data for an email address",
  tag: "Enrichment",
  paths: ["/enrich"],
  agentPath: "/enrich",
  params: z.object({ email: z.string().min(1), enrich_mobile: enrichMobileParam }),
  rateGroup: "enrich",
  cost: { balance: "search", amount: 1 },
  extraCostFor: extraPhoneCost,
  usageCategory: "search",
  response: z.object({ data: nullableRecord }),
  bulk: {
    type: "enrich",
    label: "Email Enrichment",
    description: "Person and company data for each address",
    fields: [BULK_FIELDS.email],
    primaryParam: "email",
    requires: [["email"]],
    options: [BULK_OPTIONS.find_phones],
    paramsFor: (cells, options) => ({
      ...pick(cells, ["email"]),
      ...(flag(options, "find_phones") ? { enrich_mobile: "true" } : {}),
    }),
    resultColumns: {
      first_name: "first_name",
      last_name: "last_name",
      position: "position",
      department: "department",
      seniority: "seniority",
      company: "company",
      website_url: "website_url",
      country: "country",
      linkedin: "linkedin",
      twitter: "twitter",
    },
    optionColumns: { find_phones: { phone: "phone_data.e164_format", phone_type: "phone_data.line_type" } },
  },
  async handler(params, ctx) {
    const email = emailParam(params.email);
    const emailDomain = email.slice(email.lastIndexOf("@") + 1);
    // Claim check, person and indexed company read side by side (one round trip); the site is
    // only fetched for a person we know whose company is not indexed.
    const [, stored, indexed] = await Promise.all([
      assertNotClaimed(ctx.env, "email", email),
      personByEmail(ctx.env, email),
      companyByDomain(ctx.env, emailDomain),
    ]);
    if (!stored) return { body: { data: null }, found: false };
    const [person, company] = await Promise.all([
      withoutClaimedProfile(ctx.env, stored),
      stored.domain === emailDomain && hasFacts(indexed) ? indexed : companyForPerson(ctx, stored.domain),
    ]);
    const data: Record<string, unknown> = await storedPersonData(ctx.env, person, company);
    if (!params.enrich_mobile) return { body: { data }, found: true };
    const phone = await phoneDataFor(ctx.env, { email, domain: person.domain, url: person.professionalNetworkUrl });
    data.phone_data = phone;
    return { body: { data }, found: true, extraCost: phoneExtraCost(phone) };
  },
});
