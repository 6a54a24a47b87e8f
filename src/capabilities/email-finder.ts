import { z } from "@hono/zod-openapi";
import { ensureIndexed } from "../engine/index/ensure-indexed.js";
import { findEmail } from "../engine/finder/email-finder.js";
import { finderData } from "./shapes/finder.js";
import { type PersonName, splitFullName } from "../engine/people/names.js";
import { ApiError } from "../http/errors.js";
import { phoneDataFor, phoneExtraCost } from "../engine/phones/phone-data.js";
import { domainOrCompany, FinderDataSchema, resolveTarget } from "./shapes/finder.js";
import { enrichMobileParam, extraPhoneCost } from "./shapes/enrichment-params.js";
import { BULK_FIELDS, BULK_OPTIONS, flag, pick } from "./shapes/bulk-fields.js";
import { defineCapability } from "./core/registry.js";
import { noMemo } from "../engine/memo.js";

const namePart = (what: string) => z.string().trim().min(1).max(100).optional().openapi({ description: what });

export function personName(params: { full_name?: string; first_name?: string; last_name?: string }): PersonName {
  if (params.first_name && params.last_name) return { first: params.first_name, last: params.last_name };
  if (params.full_name) {
    const name = splitFullName(params.full_name);
    if (name) return name;
    throw new ApiError(400, "params_invalid", "The parameter 'full_name' is invalid: it needs a first and a last name.");
  }
  throw new ApiError(400, "params_invalid", "The parameters 'first_name' and 'last_name' (or 'full_name') are required.");
}

/**
 * When no address can be proposed (no address of the person was published and the domain shows no
 * named address to learn its format from) the answer is still 200, with `email` and `score` null,
 * and it is not billed: clients of this API treat any non-200 as an error, and "nothing found" is
 * not one.
 */
export const emailFinder = defineCapability({
  acceptsCallback: true,
  name: "email-finder",
  label: "Email Finder",
  summary: "The most likely address of a person at a company, scored from evidence (seen on its pages, the domain's format, verification)",
  tag: "Finder",
  paths: ["/email-finder"],
  agentPath: "/email-finder",
  params: z.object({
    ...domainOrCompany,
    full_name: namePart("Full name, when first_name and last_name are not given"),
    first_name: namePart("First name"),
    last_name: namePart("Last name"),
    enrich_mobile: enrichMobileParam,
  }),
  rateGroup: "search",
  cost: { balance: "search", amount: 1 },
  extraCostFor: extraPhoneCost,
  usageCategory: "search",
  response: z.object({ data: FinderDataSchema }),
  bulk: {
    type: "finder",
    label: "Email Finder",
    description: "The most likely address of each person (name + domain or company)",
    fields: [BULK_FIELDS.domain, BULK_FIELDS.company, BULK_FIELDS.first_name, BULK_FIELDS.last_name, BULK_FIELDS.full_name, BULK_FIELDS.email],
    primaryParam: "full_name",
    requires: [["domain", "first_name", "last_name"], ["domain", "full_name"], ["company", "first_name", "last_name"], ["company", "full_name"]],
    options: [BULK_OPTIONS.skip_rows_with_email, BULK_OPTIONS.find_phones, BULK_OPTIONS.include_sources],
    paramsFor: (cells, options) => ({
      ...pick(cells, ["domain", "company", "first_name", "last_name", "full_name"]),
      ...(flag(options, "find_phones") ? { enrich_mobile: "true" } : {}),
    }),
    resultColumns: ["email", "score", "first_name", "last_name", "position", "department", "company", "pattern", "verification.status", "accept_all", "linkedin", "twitter"],
    isValid: (data) => typeof (data as { email?: unknown } | null)?.email === "string",
  },
  async handler(params, ctx) {
    const name = personName(params);
    const memo = ctx.memo ?? noMemo;
    const domain = params.domain ? await resolveTarget(ctx.env, params) : await memo.once(`company:${params.company}`, () => resolveTarget(ctx.env, params));
    await memo.once(`indexed:${domain}`, () => ensureIndexed(ctx, domain));
    const answer = await findEmail(ctx, domain, name);
    const data = finderData(domain, name, answer);
    if (!params.enrich_mobile || answer.email === null) return { body: { data }, found: answer.email !== null };
    const phone = await phoneDataFor(ctx.env, { email: answer.email, domain });
    // The bool says whether a number is known; phone_data carries it.
    return { body: { data: { ...data, phone_data: phone, phone_number: phone ? true : data.phone_number } }, found: true, extraCost: phoneExtraCost(phone) };
  },
});
