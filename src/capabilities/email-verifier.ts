import { z } from "@hono/zod-openapi";
import { verifyEmail } from "../engine/verify/verifier.js";
import { defineCapability } from "./core/registry.js";
import { BULK_FIELDS, pick } from "./shapes/bulk-fields.js";
import { VerifierResponseSchema } from "./shapes/verifier.js";

export const emailVerifier = defineCapability({
  acceptsCallback: true,
  name: "email-verifier",
  label: "Email Verifier",
  summary:
    "Verify an email address: syntax, DNS (MX, null MX, implicit MX), disposable, webmail, role, gibberish, typo, catch-all and SMTP when a prober is configured",
  tag: "Verification",
  paths: ["/email-verifier", "/email-verifier/{email}"],
  agentPath: "/email-verifier",
  params: z.object({
    email: z
      .string()
      .trim()
      .min(1, { message: "must not be empty" })
      .max(1024, { message: "is far longer than any email address" })
      .openapi({
        description: "The address to verify (in the path, `+` is kept literally)",
        example: "jane.doe@example.com",
      }),
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
    // The verdict is nested: data.email (contract 5.3), data.sources beside it.
    resultColumns: {
      status: "email.status",
      result: "email.result",
      score: "email.score",
      accept_all: "email.accept_all",
      disposable: "email.disposable",
      webmail: "email.webmail",
      role: "email.role",
      mx_records: "email.mx_records",
      smtp_check: "email.smtp_check",
      did_you_mean: "email.did_you_mean",
    },
    isValid: (data) => (data as { email?: { status?: unknown } } | null)?.email?.status === "valid",
    invalidInput: (data) =>
      (data as { email?: { reason?: unknown } } | null)?.email?.reason === "invalid_syntax"
        ? "not a syntactically valid email address"
        : null,
  },
  async handler(params, ctx) {
    const { data, definitive } = await verifyEmail(ctx.env, params.email, { memo: ctx.memo });
    // An open verdict (`unknown`) is not billed: the caller learnt nothing they can act on. Nor is
    // invalid input (docs/limits-and-credits.md, "What is billed"): an address whose syntax is invalid costs nothing.
    const deferred = data.email.reason === "smtp_greylisted" || data.email.reason === "smtp_paced";
    return {
      body: { data },
      found: definitive && data.email.reason !== "invalid_syntax",
      ...(deferred ? { waiting: data.email.note } : {}),
    };
  },
});
