import { z } from "@hono/zod-openapi";
import { assertNormalisedNotClaimed } from "../engine/index/claims.js";
import { type PhoneFacts, PhoneInputError, phoneCountry, phoneFacts } from "../engine/phones/numbers.js";
import { ApiError } from "../http/errors.js";
import { defineCapability } from "./core/registry.js";
import { BULK_FIELDS, pick } from "./shapes/bulk-fields.js";
import { PhoneFactsSchema } from "./shapes/phone.js";

export const phoneValidator = defineCapability({
  acceptsCallback: true,
  name: "phone-validator",
  label: "Phone Validator",
  summary: "Validate a phone number: formats, country, line type and time zones",
  tag: "Phones",
  paths: ["/phone-validator"],
  agentPath: "/phone-validator",
  params: z.object({
    phone: z
      .string()
      .min(1)
      .max(64)
      .openapi({ description: "E.164 (+33612345678) or national form with country_code", example: "+33612345678" }),
    country_code: z.string().optional().openapi({ description: "ISO 3166 alpha-2 country for a national number" }),
    country: z.string().optional().openapi({ description: "Alias of country_code" }),
  }),
  rateGroup: "phone",
  cost: { balance: "phone", amount: 1 },
  usageCategory: "phones",
  response: z.object({ data: PhoneFactsSchema }),
  bulk: {
    type: "phone-validator",
    label: "Phone Validator",
    description: "Validity, format and line type of each phone number",
    fields: [BULK_FIELDS.phone, BULK_FIELDS.country],
    primaryParam: "phone",
    requires: [["phone"]],
    options: [],
    paramsFor: (cells) => pick(cells, ["phone", "country_code"]),
    resultColumns: {
      valid: "valid",
      e164_format: "e164_format",
      intl_format: "intl_format",
      line_type: "line_type",
      country_code: "country_code",
      carrier: "carrier",
    },
    isValid: (data) => (data as { valid?: unknown } | null)?.valid === true,
    invalidInput: (data) => ((data as { valid?: unknown } | null)?.valid === false ? "not a valid phone number" : null),
  },
  async handler(params, ctx) {
    let facts: PhoneFacts;
    try {
      facts = phoneFacts(params.phone, phoneCountry(params.country_code ?? params.country));
    } catch (err) {
      if (err instanceof PhoneInputError) throw new ApiError(400, "params_invalid", err.message);
      throw err;
    }
    // The E.164 of a valid number is already the claims' normal form (normalisePhone would parse it again).
    if (facts.e164_format) await assertNormalisedNotClaimed(ctx.env, "phone", facts.e164_format);
    // Invalid input is not billed (docs/limits-and-credits.md, "What is billed"): an invalid number costs nothing.
    return { body: { data: facts }, found: facts.valid };
  },
});
