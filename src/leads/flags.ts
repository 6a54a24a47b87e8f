import { z } from "@hono/zod-openapi";
import type { flags } from "../db/schema-leads.js";
import { fixedLimit } from "../limits/middleware.js";
import { rfc3339 } from "../platform/time.js";

/** Reading and reporting flags share one fixed limit: 10 requests per minute per client address. */
export const flagLimit = fixedLimit({ name: "flag", limit: 10, windowMs: 60_000, scope: "ip" });

/** Reports of incorrect results; the reasons a report may give depend on what is flagged. */
export const REASONS_BY_TYPE = {
  email: ["hard_bounce", "invalid_email", "wrong_person", "outdated", "other"],
  organization: ["wrong_company", "outdated", "other"],
  phone: ["wrong_phone", "wrong_person", "outdated", "other"],
  author_url: ["wrong_person", "broken_url", "other"],
  website: ["wrong_company", "broken_url", "outdated", "other"],
} as const;
export const FLAG_TYPES = Object.keys(REASONS_BY_TYPE) as (keyof typeof REASONS_BY_TYPE)[];
const ALL_REASONS = [...new Set(Object.values(REASONS_BY_TYPE).flat())] as [string, ...string[]];

export const CreateFlagBody = z
  .strictObject({
    flag_type: z.enum(FLAG_TYPES as [keyof typeof REASONS_BY_TYPE, ...(keyof typeof REASONS_BY_TYPE)[]]),
    value: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .openapi({ description: "The flagged email, organization, phone, author URL or website" }),
    reason: z.enum(ALL_REASONS).openapi({
      description:
        "email: hard_bounce, invalid_email, wrong_person, outdated, other; organization: wrong_company, outdated, other; phone: wrong_phone, wrong_person, outdated, other; author_url: wrong_person, broken_url, other; website: wrong_company, broken_url, outdated, other",
    }),
    comment: z.string().trim().max(1_000).optional(),
  })
  .superRefine((body, ctx) => {
    const allowed: readonly string[] = REASONS_BY_TYPE[body.flag_type];
    if (!allowed.includes(body.reason)) {
      ctx.addIssue({
        code: "custom",
        path: ["reason"],
        message: `for flag_type ${body.flag_type} expected one of ${allowed.join(", ")}`,
      });
    }
  })
  .openapi("CreateFlag");

export const FlagSchema = z
  .object({
    id: z.number().int(),
    flag_type: z.string(),
    value: z.string(),
    reason: z.string(),
    comment: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("Flag");
export type Flag = z.infer<typeof FlagSchema>;

export function renderFlag(row: typeof flags.$inferSelect): Flag {
  return {
    id: row.id,
    flag_type: row.flagType,
    value: row.value,
    reason: row.reason,
    comment: row.comment,
    created_at: rfc3339(row.createdAt),
  };
}
