import { z } from "@hono/zod-openapi";

/** PhoneData without the lookup key (docs/wire-contract.md §4.5). */
export const PhoneFactsSchema = z
  .object({
    valid: z.boolean(),
    e164_format: z.string().nullable(),
    intl_format: z.string().nullable(),
    local_format: z.string().nullable(),
    rfc3966_format: z.string().nullable(),
    country_code: z.string().nullable().openapi({ description: "ISO 3166 alpha-2" }),
    line_type: z.string().nullable().openapi({ example: "MOBILE" }),
    carrier: z.string().openapi({ description: "Empty when no carrier data exists for the number" }),
    timezones: z.array(z.string()),
  })
  .openapi("PhoneFacts");

/** PhoneData: the facts plus an echo of the lookup key. */
export const PhoneDataSchema = PhoneFactsSchema.extend({
  email: z.string().optional(),
  domain: z.string().optional(),
  linkedin: z.string().optional(),
  professional_network: z.string().optional(),
}).openapi("PhoneData");
