import { z } from "@hono/zod-openapi";
import { verifyEmail } from "../engine/verify.js";
import { defineCapability } from "./registry.js";
import { VerifierResponseSchema } from "./verifier-shapes.js";

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
  async handler(params, ctx) {
    const { data, definitive } = await verifyEmail(ctx.env, params.email);
    // An open verdict (`unknown`) is not billed: the caller learnt nothing they can act on.
    return { body: { data }, found: definitive };
  },
});
