import { z } from "@hono/zod-openapi";
import type { Verdict, VerifierData } from "../../engine/verify/verdict.js";
import { VERDICT_REASONS, VERIFIER_RESULTS, VERIFIER_STATUSES } from "../../engine/verify/verdict.js";
import { SourceSchema } from "./finder.js";

/**
 * The verifier's answer (docs/wire-contract.md §6.1), declared once: the OpenAPI documents of both surfaces are
 * generated from these schemas, which must describe exactly the engine's verdict (checked below).
 * `data.email` is the verdict object, `data.sources[]` sits beside it.
 */

export const VerdictSchema = z
  .object({
    email: z.string(),
    status: z.enum(VERIFIER_STATUSES),
    result: z.enum(VERIFIER_RESULTS),
    score: z.number().int().openapi({ description: "0–100; webmail and disposable addresses get 50" }),
    regex: z.boolean(),
    gibberish: z.boolean(),
    disposable: z.boolean(),
    webmail: z.boolean(),
    role: z.boolean().openapi({ description: "A role account (info@, sales@): reaches a function, not a person" }),
    mx_records: z.boolean(),
    mx_check: z.boolean().openapi({ description: "Same value as mx_records (both names are read by clients)" }),
    mx: z.object({ records: z.array(z.string()) }),
    implicit_mx: z
      .boolean()
      .openapi({ description: "No MX: mail goes to the domain's A/AAAA address (RFC 5321 §5.1)" }),
    smtp_provider: z.string().nullable(),
    smtp_server: z.boolean(),
    smtp_check: z.boolean(),
    smtp_check_run: z
      .boolean()
      .openapi({ description: "False when no SMTP prober is configured: the mailbox was not tested" }),
    accept_all: z.boolean(),
    block: z.boolean(),
    greylisted: z.boolean(),
    whois: z.object({
      registrar_name: z.string().nullable(),
      referral_url: z.string().nullable(),
      created_date: z.string().nullable(),
    }),
    did_you_mean: z
      .string()
      .nullable()
      .openapi({ description: "Likely intended address when the domain looks like a webmail typo" }),
    reason: z.enum(VERDICT_REASONS).nullable(),
    note: z.string().openapi({ description: "Plain-language account of what was checked and what was not" }),
  })
  .openapi("EmailVerdict");

export const VerifierDataSchema = z
  .object({ email: VerdictSchema, sources: z.array(SourceSchema) })
  .openapi("EmailVerification", {
    description: "`email` is the verdict object; `sources` lists the public pages showing the address",
  });

export const VerifierResponseSchema = z.object({ data: VerifierDataSchema });

// The schema and the engine's verdict are the same shape: either drifting fails the typecheck.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaIsVerdict: Same<z.infer<typeof VerdictSchema>, Verdict> = true;
const schemaIsData: Same<z.infer<typeof VerifierDataSchema>, VerifierData> = true;
void schemaIsVerdict;
void schemaIsData;

export type { Verdict, VerifierData };
export { VERDICT_REASONS, VERIFIER_RESULTS, VERIFIER_STATUSES };
