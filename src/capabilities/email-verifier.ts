import { z } from "@hono/zod-openapi";
import { verifyEmail } from "../engine/verify.js";
import { BULK_FIELDS, pick } from "./bulk-fields.js";
import { defineCapability } from "./registry.js";

const SourceSchema = z.object({
  uri: z.string(),
  website_url: z.string(),
  extracted_on: z.string().nullable(),
  last_seen_on: z.string().nullable(),
  still_on_page: z.boolean(),
});

const VerifierDataSchema = z
  .object({
    email: z.string(),
    status: z.enum(["valid", "invalid", "accept_all", "webmail", "disposable", "unknown"]),
    result: z.enum(["deliverable", "undeliverable", "risky"]),
    score: z.number().int(),
    regex: z.boolean(),
    gibberish: z.boolean(),
    disposable: z.boolean(),
    webmail: z.boolean(),
    role: z.boolean(),
    mx_records: z.boolean(),
    mx_check: z.boolean(),
    mx: z.object({ records: z.array(z.string()) }),
    implicit_mx: z.boolean(),
    smtp_provider: z.string().nullable(),
    smtp_server: z.boolean(),
    smtp_check: z.boolean(),
    smtp_check_run: z.boolean().openapi({ description: "False when no SMTP prober is configured: the mailbox was not tested" }),
    accept_all: z.boolean(),
    block: z.boolean(),
    greylisted: z.boolean(),
    whois: z.object({ registrar_name: z.string().nullable(), referral_url: z.string().nullable(), created_date: z.string().nullable() }),
    did_you_mean: z.string().nullable().openapi({ description: "Likely intended address when the domain looks like a webmail typo" }),
    reason: z.string().nullable(),
    note: z.string(),
    sources: z.array(SourceSchema),
  })
  .openapi("EmailVerification");

export const emailVerifier = defineCapability({
  name: "email-verifier",
  label: "Email Verifier",
  summary: "Verify an email address: syntax, DNS (MX, null MX, implicit MX), disposable, webmail, role, gibberish, typo, catch-all and SMTP when a prober is configured",
  tag: "Verification",
  paths: ["/email-verifier", "/email-verifier/{email}"],
  agentPath: "/email-verifier",
  params: z.object({
    email: z
      .string()
      .trim()
      .min(1, { message: "must not be empty" })
      .max(1024, { message: "is far longer than any email address" })
      .openapi({ description: "The address to verify (in the path, `+` is kept literally)", example: "jane.doe@example.com" }),
  }),
  rateGroup: "verifier",
  cost: { balance: "verification", amount: 1 },
  estimatedCostHeader: "X-Estimated-Verify-Cost",
  usageCategory: "verifier",
  response: z.object({ data: VerifierDataSchema }),
  bulk: {
    type: "verifier",
    label: "Email Verifier",
    description: "Deliverability of each address",
    fields: [BULK_FIELDS.email],
    primaryParam: "email",
    requires: [["email"]],
    options: [],
    paramsFor: (cells) => pick(cells, ["email"]),
    resultColumns: ["status", "result", "score", "accept_all", "disposable", "webmail", "role", "mx_records", "smtp_check", "did_you_mean"],
    isValid: (data) => (data as { status?: unknown } | null)?.status === "valid",
  },
  async handler(params, ctx) {
    const { data, definitive } = await verifyEmail(ctx.env, params.email);
    // An open verdict (`unknown`) is not billed: the caller learnt nothing they can act on.
    return { body: { data }, found: definitive };
  },
});
