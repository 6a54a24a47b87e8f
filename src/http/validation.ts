import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { errorResponse } from "./errors.js";

type HookResult = { success: true } | { success: false; error: z.ZodError; data?: unknown; target?: string };

/** The hook every zod-declared route uses: first failing parameter, named, as a 400 params_invalid. */
export function paramsInvalidHook(result: HookResult, _c: Context) {
  if (result.success) return;
  return errorResponse(400, "params_invalid", describeIssue(result.error, result.data, result.target));
}

/** What a value is, in the words of a JSON or query-string client. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a fractional number";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

const EXPECTED: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  bigint: "an integer",
};

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * One clear sentence about the first problem. `input` (the raw value that was validated) tells a
 * missing parameter from one of the wrong type; `target` "query" tells a repeated parameter.
 */
export function describeIssue(error: z.ZodError, input?: unknown, target?: string): string {
  const issue = error.issues[0];
  if (!issue) return "Invalid parameters.";
  const name = issue.path.map(String).join(".") || "body";
  const given = input === undefined ? undefined : issue.path.length ? valueAt(input, issue.path) : input;
  if (issue.code === "invalid_type") {
    // zod does not keep the input on the issue; the raw value tells absence from a wrong type.
    if (given === undefined) return `The parameter '${name}' is required.`;
    if (target === "query" && Array.isArray(given))
      return `The parameter '${name}' was given ${given.length} times; send it once.`;
    if (
      issue.expected === "int" &&
      (typeof given === "number" ||
        (typeof given === "string" && given.trim() !== "" && Number.isFinite(Number(given))))
    ) {
      return `The parameter '${name}' is invalid: expected a whole number, got ${String(given).slice(0, 30)}.`;
    }
    if (issue.message && !/^Invalid input/.test(issue.message))
      return `The parameter '${name}' is invalid: ${issue.message}.`;
    return `The parameter '${name}' must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${kindOf(given)}.`;
  }
  if (target === "query" && Array.isArray(given))
    return `The parameter '${name}' was given ${given.length} times; send it once.`;
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
