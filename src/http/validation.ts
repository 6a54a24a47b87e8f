import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { errorResponse } from "./errors.js";

type HookResult = { success: true } | { success: false; error: z.ZodError; target?: string };

/** The hook every zod-declared route uses: first failing parameter, named, as a 400 params_invalid. */
export function paramsInvalidHook(result: HookResult, _c: Context) {
  if (result.success) return;
  return errorResponse(400, "params_invalid", describeIssue(result.error));
}

export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "Invalid parameters.";
  const name = issue.path.map(String).join(".") || "body";
  if (issue.code === "invalid_type" && issue.input === undefined) return `The parameter '${name}' is required.`;
  return `The parameter '${name}' is invalid: ${issue.message}.`;
}

/** Query strings carry text: integers are coerced, with a clear message on junk. */
const integer = (opts: { min?: number; max?: number }) => {
  let s = z.coerce.number({ message: "expected an integer" }).int({ message: "expected an integer" });
  if (opts.min !== undefined) s = s.min(opts.min, { message: `must be at least ${opts.min}` });
  if (opts.max !== undefined) s = s.max(opts.max, { message: `must be at most ${opts.max}` });
  return s;
};
export const queryInt = (opts: { min?: number; max?: number } = {}) => integer(opts).optional();
export const queryIntOr = (def: number, opts: { min?: number; max?: number } = {}) => integer(opts).default(def);

/** Booleans arrive as "true"/"false" (also 1/0) from every client of this API. */
export const queryBool = () =>
  z
    .enum(["true", "false", "1", "0"], { message: "expected true or false" })
    .transform((v) => v === "true" || v === "1")
    .optional();
