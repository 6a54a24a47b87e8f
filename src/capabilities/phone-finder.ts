import { z } from "@hono/zod-openapi";
import { assertNotClaimed, normaliseProfileUrl } from "../engine/index/claims.js";
import { domainParam, emailParam } from "../engine/index/people.js";
import { type PhoneData, type PhoneKey, phoneDataOf, servableNumbers } from "../engine/phones/phone-data.js";
import type { Env } from "../env.js";
import { ApiError } from "../http/errors.js";
import { queryBool } from "../http/validation.js";
import { defineCapability } from "./core/registry.js";
import { BULK_FIELDS, BULK_OPTIONS, flag, pick } from "./shapes/bulk-fields.js";
import { PhoneDataSchema } from "./shapes/phone.js";

/** Reads exactly one lookup key, checks its claims, and returns the servable numbers as PhoneData. */
async function findPhones(
  env: Env,
  params: { email?: string; domain?: string; professional_network?: string; linkedin?: string },
): Promise<PhoneData[]> {
  const profileText = params.professional_network ?? params.linkedin;
  const given = [params.email, params.domain, profileText].filter((v) => v !== undefined && v !== "");
  if (given.length !== 1) {
    throw new ApiError(
      400,
      "params_invalid",
      "Pass exactly one of 'email', 'domain' or 'professional_network' (alias 'linkedin').",
    );
  }
  let key: PhoneKey;
  if (params.email) {
    const email = emailParam(params.email);
    key = { email };
    await assertNotClaimed(env, "email", email);
  } else if (params.domain) {
    key = { domain: domainParam(params.domain) };
  } else {
    // Exactly one was given, neither an email nor a domain: the profile.
    const url = profileText ? normaliseProfileUrl(profileText) : null;
    if (!url)
      throw new ApiError(
        400,
        "params_invalid",
        "The parameter 'professional_network' is invalid: it is not a profile URL.",
      );
    await assertNotClaimed(env, "linkedin", url);
    key = { url };
  }
  const numbers = await servableNumbers(env, key);
  return numbers.map((n) => phoneDataOf(n, key));
}

export const phoneFinder = defineCapability({
  acceptsCallback: true,
  name: "phone-finder",
  label: "Phone Finder",
  summary: "Phone numbers of a person (email or profile URL) or a company (domain)",
  tag: "Phones",
  paths: ["/phone-finder"],
  agentPath: "/phone-finder",
  params: z.object({
    email: z.string().optional(),
    domain: z.string().optional(),
    professional_network: z.string().optional().openapi({ description: "Profile URL" }),
    linkedin: z.string().optional().openapi({ description: "Alias of professional_network" }),
    full: queryBool().openapi({ description: "true: every stored number (data is an array)" }),
  }),
  rateGroup: "phone",
  cost: { balance: "phone", amount: 1 },
  usageCategory: "phones",
  response: z.object({ data: z.union([PhoneDataSchema, z.array(PhoneDataSchema)]).nullable() }),
  bulk: {
    type: "phone-finder",
    label: "Phone Finder",
    description: "Phone numbers for each email, domain or profile URL",
    fields: [BULK_FIELDS.email, BULK_FIELDS.domain, { ...BULK_FIELDS.linkedin, param: "professional_network" }],
    primaryParam: "email",
    requires: [["email"], ["domain"], ["professional_network"]],
    options: [BULK_OPTIONS.find_all_phones],
    // The capability takes exactly one key: the most specific one the row has.
    paramsFor: (cells, options) => {
      const key = cells.email
        ? { email: cells.email }
        : cells.professional_network
          ? { professional_network: cells.professional_network }
          : pick(cells, ["domain"]);
      return { ...key, ...(flag(options, "find_all_phones") ? { full: "true" } : {}) };
    },
    resultColumns: {
      e164_format: "e164_format",
      intl_format: "intl_format",
      line_type: "line_type",
      country_code: "country_code",
      carrier: "carrier",
    },
  },
  async handler(params, ctx) {
    const found = await findPhones(ctx.env, params);
    if (params.full) return { body: { data: found }, found: found.length > 0 };
    return { body: { data: found[0] ?? null }, found: found.length > 0 };
  },
});

/** GET /v1/phone/{email}, the path existing clients call: the same answer, with `timezones` as one comma-separated string. */
export const phoneLegacy = defineCapability({
  name: "phone-legacy",
  label: "Phone Finder",
  summary: "Phone number of a person by email (legacy path of /phone-finder)",
  tag: "Phones",
  paths: ["/phone/{email}"],
  // The reference service's Python client (1.0.5) calls /phone/?email= (trailing slash, query parameter).
  aliases: ["/phone/"],
  params: z.object({ email: z.string().min(1) }),
  response: z.object({
    data: PhoneDataSchema.extend({
      timezones: z.string().openapi({ description: "Comma-separated IANA time zones" }),
    }).nullable(),
  }),
  rateGroup: "phone",
  cost: { balance: "phone", amount: 1 },
  usageCategory: "phones",
  async handler(params, ctx) {
    const [first] = await findPhones(ctx.env, { email: params.email });
    return { body: { data: first ? { ...first, timezones: first.timezones.join(",") } : null }, found: !!first };
  },
});
