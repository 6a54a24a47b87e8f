import { z } from "@hono/zod-openapi";
import { assertNotClaimed, claimedAmong, normaliseProfileUrl } from "../engine/index/claims.js";
import { companyByDomain, peopleByProfile } from "../engine/index/people.js";
import { phoneDataFor, phoneExtraCost } from "../engine/phones/phone-data.js";
import { ApiError } from "../http/errors.js";
import { queryBool } from "../http/validation.js";
import { defineCapability } from "./core/registry.js";
import { BULK_FIELDS, BULK_OPTIONS, flag, pick } from "./shapes/bulk-fields.js";
import { enrichMobileParam, extraPhoneCost, nullableRecord } from "./shapes/enrichment-params.js";
import { storedPersonData } from "./shapes/person.js";

export const professionalNetwork = defineCapability({
  acceptsCallback: true,
  name: "professional-network",
  label: "Profile Finder",
  summary: "Email address of the person behind a professional-network profile URL",
  tag: "Finder",
  paths: ["/professional-network"],
  aliases: ["/linkedin"],
  agentPath: "/professional-network",
  params: z.object({
    url: z.string().min(1).openapi({ description: "Profile URL (or bare handle)" }),
    full: queryBool().openapi({ description: "true: every stored address (data is an array)" }),
    enrich_mobile: enrichMobileParam,
  }),
  rateGroup: "phone",
  cost: { balance: "search", amount: 1 },
  extraCostFor: extraPhoneCost,
  usageCategory: "search",
  response: z.object({ data: z.union([nullableRecord, z.array(z.record(z.string(), z.unknown()))]) }),
  bulk: {
    type: "linkedin",
    label: "Profile Finder",
    description: "Email address of the person behind each profile URL",
    fields: [BULK_FIELDS.linkedin],
    primaryParam: "url",
    requires: [["url"]],
    options: [BULK_OPTIONS.find_phones],
    paramsFor: (cells, options) => ({
      ...pick(cells, ["url"]),
      ...(flag(options, "find_phones") ? { enrich_mobile: "true" } : {}),
    }),
    resultColumns: {
      email: "email",
      score: "score",
      first_name: "first_name",
      last_name: "last_name",
      position: "position",
      company: "company",
      website_url: "website_url",
    },
    optionColumns: { find_phones: { phone: "phone_data.e164_format", phone_type: "phone_data.line_type" } },
  },
  async handler(params, ctx) {
    const url = normaliseProfileUrl(params.url);
    if (!url)
      throw new ApiError(
        400,
        "params_invalid",
        "The parameter 'url' is invalid: it is not a profile URL (https://www.linkedin.com/in/<handle>).",
      );
    await assertNotClaimed(ctx.env, "linkedin", url);

    const addressed = (await peopleByProfile(ctx.env, url)).filter((p): p is typeof p & { email: string } =>
      Boolean(p.email),
    );
    const claimed = await claimedAmong(
      ctx.env,
      "email",
      addressed.map((p) => p.email),
    );
    const people = addressed.filter((p) => !claimed.has(p.email));
    const [first] = people;
    if (!first && addressed.length > 0) {
      throw new ApiError(
        451,
        "claimed_email",
        "This email address was removed at its owner's request and cannot be served.",
      );
    }
    if (!first) return { body: { data: params.full ? [] : null }, found: false };

    const company = await companyByDomain(ctx.env, first.domain);
    const answers = await Promise.all(people.map((p) => storedPersonData(ctx.env, p, company)));
    // The most likely address is the best-evidenced one; personal addresses before shared ones.
    answers.sort((a, b) => Number(a.type === "generic") - Number(b.type === "generic") || b.score - a.score);
    const [best] = answers;
    if (!best) throw new Error("no answer for a non-empty list of people");
    const data: Record<string, unknown>[] | Record<string, unknown> = params.full ? answers : best;
    if (!params.enrich_mobile) return { body: { data }, found: true };
    const phone = await phoneDataFor(ctx.env, { url, email: best.email }, { strict: true });
    for (const a of Array.isArray(data) ? data : [data]) a.phone_data = phone;
    return { body: { data }, found: true, extraCost: phoneExtraCost(phone) };
  },
});
