import { z } from "@hono/zod-openapi";
import { type FindOptions, findEmail } from "../engine/finder/email-finder.js";
import { claimedAmong } from "../engine/index/claims.js";
import { ensureIndexed } from "../engine/index/ensure-indexed.js";
import { noMemo } from "../engine/memo.js";
import { nameSplits, type PersonName, splitFullName } from "../engine/people/names.js";
import { phoneDataFor, phoneDataOf, phoneExtraCost, storedNumbers } from "../engine/phones/phone-data.js";
import { ApiError } from "../http/errors.js";
import { type CapabilityContext, defineCapability } from "./core/registry.js";
import { BULK_FIELDS, BULK_OPTIONS, emailTypeOf, flag, pick, withheldBecause } from "./shapes/bulk-fields.js";
import { enrichMobileParam, extraPhoneCost } from "./shapes/enrichment-params.js";
import { domainOrCompany, FinderDataSchema, finderData, resolveTarget } from "./shapes/finder.js";

const namePart = (what: string) => z.string().trim().min(1).max(100).optional().openapi({ description: what });

export function personName(params: { full_name?: string; first_name?: string; last_name?: string }): PersonName {
  if (params.first_name && params.last_name) return { first: params.first_name, last: params.last_name };
  if (params.full_name) {
    const name = splitFullName(params.full_name);
    if (name) return name;
    throw new ApiError(
      400,
      "params_invalid",
      "The parameter 'full_name' is invalid: it needs a first and a last name.",
    );
  }
  throw new ApiError(
    400,
    "params_invalid",
    "The parameters 'first_name' and 'last_name' (or 'full_name') are required.",
  );
}

type FinderParams = {
  domain?: string;
  company?: string;
  full_name?: string;
  first_name?: string;
  last_name?: string;
  enrich_mobile?: boolean;
};

/** The person's every stored, unclaimed number (bulk find_all_phones), best first. */
async function allPhonesOf(ctx: CapabilityContext, email: string) {
  const numbers = await storedNumbers(ctx.env, { email });
  const claimed = numbers.length ? await claimedAmong(ctx.env, "phone", numbers) : new Set<string>();
  return numbers.filter((n) => !claimed.has(n)).map((n) => phoneDataOf(n, { email }));
}

/** The finder, with the options only bulk jobs set: verification and source boost off, every phone number. */
async function findPerson(
  params: FinderParams,
  ctx: CapabilityContext,
  opts: FindOptions & { allPhones?: boolean } = {},
) {
  const name = personName(params);
  const memo = ctx.memo ?? noMemo;
  const domain = params.domain
    ? await resolveTarget(ctx.env, params)
    : await memo.once(`company:${params.company}`, () => resolveTarget(ctx.env, params));
  await memo.once(`indexed:${domain}`, () => ensureIndexed(ctx, domain));
  // A full name of three or more words can be split more than one way; the index's people decide.
  const readings =
    params.full_name && !(params.first_name && params.last_name)
      ? nameSplits(params.full_name).filter((r) => !r.reversed)
      : [];
  const answer = await findEmail(ctx, domain, name, readings.length > 1 ? { ...opts, readings } : opts);
  const data = finderData(domain, name, answer);
  // An answer nobody can act on yet (its SMTP search deferred or refused) is not billed.
  const found = answer.email !== null && answer.billable !== false;
  const retryAt = answer.verification.retry_at;
  const waiting =
    answer.email !== null && !found
      ? `the SMTP check of this person's address was deferred (greylisting, pacing or a refusal); ${
          retryAt ? `the search runs again at ${retryAt}, ask again after that` : "ask again later"
        }`
      : undefined;
  if (!params.enrich_mobile || !found || answer.email === null)
    return { body: { data }, found, ...(waiting ? { waiting } : {}) };
  if (opts.allPhones) {
    const phones = await allPhonesOf(ctx, answer.email);
    // phone_data keeps its single-number shape; `phones` lists them all.
    return {
      body: {
        data: { ...data, phone_data: phones[0] ?? null, phones, phone_number: phones.length > 0 || data.phone_number },
      },
      found: true,
      extraCost: phones.length ? { phone: phones.length } : {},
    };
  }
  const phone = await phoneDataFor(ctx.env, { email: answer.email, domain });
  // The bool says whether a number is known; phone_data carries it.
  return {
    body: { data: { ...data, phone_data: phone, phone_number: phone ? true : data.phone_number } },
    found: true,
    extraCost: phoneExtraCost(phone),
  };
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
  summary:
    "The most likely address of a person at a company, scored from evidence (seen on its pages, the domain's format, verification)",
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
    fields: [
      BULK_FIELDS.domain,
      BULK_FIELDS.company,
      BULK_FIELDS.first_name,
      BULK_FIELDS.last_name,
      BULK_FIELDS.full_name,
      BULK_FIELDS.email,
    ],
    primaryParam: "full_name",
    requires: [
      ["domain", "first_name", "last_name"],
      ["domain", "full_name"],
      ["company", "first_name", "last_name"],
      ["company", "full_name"],
    ],
    options: [
      BULK_OPTIONS.skip_rows_with_email,
      {
        ...BULK_OPTIONS.max_emails_per_domain,
        description:
          "At most this many rows per domain (or company) are looked up, in file order (1, 5, 10, 20, 50 or 100); the rest are skipped, not billed. A row gives at most one address",
      },
      {
        ...BULK_OPTIONS.email_type,
        description: "personal or generic (a role account: info@, sales@...); adds the type column",
      },
      BULK_OPTIONS.email_type_mode,
      BULK_OPTIONS.departments,
      BULK_OPTIONS.departments_mode,
      BULK_OPTIONS.verify_emails,
      BULK_OPTIONS.boost_score_from_sources,
      BULK_OPTIONS.find_phones,
      {
        ...BULK_OPTIONS.find_all_phones,
        description:
          "Every stored phone number of each person found instead of the best one (implies find_phones; one phone credit per number)",
      },
      BULK_OPTIONS.include_sources,
    ],
    paramsFor: (cells, options) => ({
      ...pick(cells, ["domain", "company", "first_name", "last_name", "full_name"]),
      ...(flag(options, "find_phones") || flag(options, "find_all_phones") ? { enrich_mobile: "true" } : {}),
    }),
    resultColumns: {
      email: "email",
      score: "score",
      first_name: "first_name",
      last_name: "last_name",
      position: "position",
      department: "department",
      company: "company",
      pattern: "pattern",
      "verification.status": "verification.status",
      accept_all: "accept_all",
      linkedin: "linkedin",
      twitter: "twitter",
    },
    optionColumns: {
      email_type: { type: "type" },
      find_all_phones: { phone: "phones.e164_format", phone_type: "phones.line_type" },
      find_phones: { phone: "phone_data.e164_format", phone_type: "phone_data.line_type" },
    },
    isValid: (data) => typeof (data as { email?: unknown } | null)?.email === "string",
    domainOf: (cells) => cells.domain || cells.company || null,
    async run(params, ctx, options) {
      const result = await findPerson(params, ctx, {
        verify: options.verify_emails !== false,
        boostFromSources: options.boost_score_from_sources !== false,
        allPhones: options.find_all_phones === true,
      });
      const data = result.body.data;
      if (!data.email) return result;
      const typed = { ...data, type: emailTypeOf(data.email) };
      const note = withheldBecause(typed, options);
      // A withheld answer is not billed (found: false), and the row shows why instead of the address.
      if (note) return { body: { data: typed }, found: false, note };
      return { ...result, body: { data: typed } };
    },
  },
  handler: (params, ctx) => findPerson(params, ctx),
});
