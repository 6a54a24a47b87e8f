import { z } from "@hono/zod-openapi";
import { isDisposableDomain, isWebmailDomain } from "../../engine/data/domain-lists.js";
import type { FinderAnswer } from "../../engine/finder/email-finder.js";
import { normaliseDomainInput } from "../../engine/index/ensure-indexed.js";
import { domainForCompany } from "../../engine/index/read.js";
import { fullNameOf, type PersonName } from "../../engine/people/names.js";
import { DEPARTMENTS, departmentOf, seniorityOf } from "../../engine/people/positions.js";
import type { Env } from "../../env.js";
import { ApiError } from "../../http/errors.js";
import { PhoneDataSchema } from "./phone.js";
import { NO_SOCIAL_FIELDS, SocialFieldsSchema } from "./social-fields.js";

/** Response pieces shared by the crawl-backed finder capabilities (docs/wire-contract.md §4.3, §5). */

export const SourceSchema = z
  .object({
    uri: z.string(),
    website_url: z.string(),
    extracted_on: z.string().nullable().openapi({ description: "RFC 3339" }),
    last_seen_on: z.string().nullable().openapi({ description: "RFC 3339" }),
    still_on_page: z.boolean(),
  })
  .openapi("Source");

export const VerificationSchema = z
  .object({
    date: z.string().nullable(),
    status: z.string().nullable(),
    retry_at: z.string().optional().openapi({
      description:
        "Only on an open (unknown, unbilled) finder answer whose SMTP check was deferred (greylisting, pacing) or ran out of checks: when the search runs again in the background (RFC 3339); ask again after it for the confirmed answer",
    }),
  })
  .openapi("Verification", { description: "Verifier status of the address when it was checked; null when it was not" });

export const FinderDataSchema = z
  .object({
    email: z
      .string()
      .nullable()
      .openapi({ description: "Null when no address can be proposed (the call is then not billed)" }),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    full_name: z.string().nullable(),
    website_url: z.string().nullable(),
    company: z.string().nullable(),
    position: z.string().nullable(),
    department: z.string().nullable(),
    seniority: z.string().nullable(),
    country: z.string().nullable(),
    gender: z.string().nullable(),
    ...SocialFieldsSchema.shape,
    phone_number: z.boolean().openapi({
      description: "True when a phone number of this person is stored (enrich_mobile returns it in phone_data)",
    }),
    phone_data: PhoneDataSchema.nullable().optional().openapi({
      description: "Only with enrich_mobile=true: the person's best stored number, or null when none is known",
    }),
    accept_all: z.boolean().nullable(),
    disposable: z.boolean(),
    webmail: z.boolean(),
    score: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "0–100 from evidence: seen on a page, format share, verification" }),
    pattern: z.string().nullable(),
    verification: VerificationSchema,
    sources: z.array(SourceSchema),
  })
  .openapi("FinderData");

export const departmentParam = z
  .enum(DEPARTMENTS)
  .optional()
  .openapi({ description: "Only addresses of this department" });

export const domainOrCompany = {
  domain: z
    .string()
    .trim()
    .max(255)
    .optional()
    .openapi({ description: "Company website domain (a URL is accepted)", example: "acme.com" }),
  company: z
    .string()
    .trim()
    .min(3, { message: "must be 3 to 75 characters" })
    .max(75, { message: "must be 3 to 75 characters" })
    .optional()
    .openapi({ description: "Company name, when the domain is unknown (3–75 characters)" }),
};

/** The registrable domain named by `domain`, or found for `company` in the index (422 when unknown). */
export async function resolveTarget(env: Env, params: { domain?: string; company?: string }): Promise<string> {
  if (params.domain) return normaliseDomainInput(params.domain);
  if (params.company) return domainForCompany(env, params.company);
  throw new ApiError(400, "params_invalid", "The parameter 'domain' is required (or pass 'company').");
}

/** FinderData as the contract shapes it (`phone_number` is a bool, score an int). */
export function finderData(domain: string, name: PersonName, answer: FinderAnswer) {
  return {
    email: answer.email,
    first_name: name.first,
    last_name: name.last,
    full_name: fullNameOf(name),
    website_url: domain,
    company: answer.company,
    position: answer.position,
    department: answer.department ?? departmentOf(answer.position),
    seniority: answer.seniority ?? seniorityOf(answer.position),
    country: null,
    gender: null,
    // The finder works from a name and a domain; profiles come from the people index (enrich).
    ...NO_SOCIAL_FIELDS,
    phone_number: false,
    accept_all: answer.acceptAll,
    disposable: isDisposableDomain(domain),
    webmail: isWebmailDomain(domain),
    score: answer.score,
    pattern: answer.pattern,
    verification: answer.verification,
    sources: answer.sources,
  };
}
