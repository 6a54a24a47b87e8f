import { z } from "@hono/zod-openapi";
import { verifyEmail } from "../engine/verify/verifier.js";
import { BULK_FIELDS, pick } from "./shapes/bulk-fields.js";
import { defineCapability } from "./core/registry.js";
import { VerifierResponseSchema } from "./shapes/verifier.js";

export const emailVerifier = defineCapability({
  acceptsCallback: true,
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
  response: VerifierResponseSchema,
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
    const { data, definitive } = await verifyEmail(ctx.env, params.email, { memo: ctx.memo });
    // An open verdict (`unknown`) is not billed: the caller learnt nothing they can act on.
    return { body: { data }, found: definitive };
  },
});
