import { z } from "@hono/zod-openapi";
import type { BulkOptionValues } from "../capabilities/core/registry.js";
import { DEPARTMENTS } from "../engine/people/positions.js";
import { ApiError } from "../http/errors.js";
import { describeIssue } from "../http/validation.js";
import type { BulkType } from "./types.js";

/**
 * Create options arrive as JSON values or as multipart text: booleans as true/false/1/0 and numbers
 * as text. Former names (gen 1) are translated before validation so one schema judges both.
 */
const bool = z.union([
  z.boolean(),
  z.enum(["true", "false", "1", "0", "on"]).transform((v) => v === "true" || v === "1" || v === "on"),
]);
const int = (min: number, max: number) =>
  z.coerce
    .number({ message: "expected an integer" })
    .int({ message: "expected an integer" })
    .min(min, { message: `must be at least ${min}` })
    .max(max, { message: `must be at most ${max}` });
const stringList = z.union([
  z.array(z.string().trim().min(1)),
  z.string().transform((s) =>
    s
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean),
  ),
]);
const departmentList = stringList.pipe(
  z
    .array(z.enum(DEPARTMENTS, { message: `expected departments among ${DEPARTMENTS.join(", ")}` }))
    .min(1, { message: "name at least one department" }),
);
const index = int(0, 1000).optional();

export const FIELD_INDEX_NAMES = [
  "domain_field_index",
  "company_name_field_index",
  "first_name_field_index",
  "last_name_field_index",
  "full_name_field_index",
  "email_field_index",
  "linkedin_url_field_index",
  "url_field_index",
  "phone_field_index",
  "country_field_index",
  "technology_field_index",
] as const;

export const CreateOptionsSchema = z
  .object({
    name: z
      .string({ message: "is required" })
      .trim()
      .min(3, { message: "must be 3 to 200 characters" })
      .max(200, { message: "must be 3 to 200 characters" }),
    list: z.string().optional(),
    data: z.unknown().optional(),
    has_header: bool.optional(),
    delimiter: z.enum([",", ";", "\t", "|"], { message: "must be one of , ; | or a tab" }).optional(),
    launch: bool.optional(),
    webhook_url: z.string().url({ message: "must be a URL" }).max(2048).optional(),
    notify: bool.optional(),
    total: int(1, 1_000_000).optional(),
    input_type: z.enum(["domain", "company"]).optional(),
    max_emails_per_domain: z.coerce
      .number()
      .pipe(
        z.union([z.literal(1), z.literal(5), z.literal(10), z.literal(20), z.literal(50), z.literal(100)], {
          message: "must be 1, 5, 10, 20, 50 or 100",
        }),
      )
      .optional(),
    email_type: z.enum(["all", "personal", "generic"]).optional(),
    email_type_mode: z.enum(["only", "priority"]).optional(),
    departments: departmentList.optional(),
    departments_mode: z.enum(["only", "exclude", "priority"]).optional(),
    verify_emails: bool.optional(),
    find_phones: bool.optional(),
    include_sources: bool.optional(),
    boost_score_from_sources: bool.optional(),
    find_all_phones: bool.optional(),
    skip_rows_with_email: bool.optional(),
    ...Object.fromEntries(FIELD_INDEX_NAMES.map((n) => [n, index])),
  })
  .strict();

export type CreateOptions = z.infer<typeof CreateOptionsSchema> &
  Partial<Record<(typeof FIELD_INDEX_NAMES)[number], number>>;

/** Former flat option names (before the 30 Sep renames) and their current names. */
const RENAMED: Record<string, string> = {
  notifie: "notify",
  sources: "include_sources",
  verify: "verify_emails",
  maximum: "max_emails_per_domain",
  skip: "skip_rows_with_email",
  phone: "find_phones",
  full: "find_all_phones",
  valid: "boost_score_from_sources",
};

/** Former one-based columns and the zero-based index options that replace them. */
const LEGACY_COLUMNS: Record<string, string> = {
  column_domain: "domain_field_index",
  column_company: "company_name_field_index",
  column_first: "first_name_field_index",
  column_last: "last_name_field_index",
  column_name: "full_name_field_index",
  column_email: "email_field_index",
  column_phone: "phone_field_index",
  column_country: "country_field_index",
  column_linkedin: "linkedin_url_field_index",
  column_url: "url_field_index",
};

function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Translates former option names into current ones; a name given in both forms with different values is refused. */
export function translateLegacy(raw: Record<string, unknown>, type: BulkType): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const set = (name: string, value: unknown, from: string) => {
    if (value === undefined) return;
    if (name in out && JSON.stringify(out[name]) !== JSON.stringify(value)) {
      throw new ApiError(
        400,
        "params_invalid",
        `The parameter '${from}' is the former name of '${name}'; send only one of them.`,
      );
    }
    out[name] = value;
  };
  for (const [key, value] of Object.entries(raw)) {
    if (key in RENAMED || key in LEGACY_COLUMNS || key === "column" || key === "email_type" || key === "department")
      continue;
    set(key, value, key);
  }
  for (const [old, current] of Object.entries(RENAMED)) if (old in raw) set(current, raw[old], old);
  // One-based columns become zero-based indexes; `column` alone named the type's primary column.
  const oneBased = (key: string, target: string) => {
    const n = Number(raw[key]);
    if (!Number.isInteger(n) || n < 1)
      throw new ApiError(400, "params_invalid", `The parameter '${key}' is invalid: columns are numbered from 1.`);
    set(target, n - 1, key);
  };
  for (const [old, current] of Object.entries(LEGACY_COLUMNS))
    if (raw[old] !== undefined && raw[old] !== "") oneBased(old, current);
  if (raw.column !== undefined && raw.column !== "") {
    const primary = type.decl.fields.find((f) => f.param === type.decl.primaryParam);
    if (primary) oneBased("column", primary.field);
  }
  // email_type: a string now; formerly {type, priority_type}.
  const emailType = parseMaybeJson(raw.email_type);
  if (emailType && typeof emailType === "object" && !Array.isArray(emailType)) {
    const o = emailType as { type?: unknown; priority_type?: unknown };
    set("email_type", o.type, "email_type.type");
    set("email_type_mode", o.priority_type, "email_type.priority_type");
  } else if (raw.email_type !== undefined) set("email_type", raw.email_type, "email_type");
  // department {name[], priority_type} became departments[] + departments_mode.
  const department = parseMaybeJson(raw.department);
  if (department !== undefined) {
    if (!department || typeof department !== "object" || Array.isArray(department)) {
      throw new ApiError(
        400,
        "params_invalid",
        "The parameter 'department' is invalid: expected {name: [...], priority_type}; send departments and departments_mode instead.",
      );
    }
    const o = department as { name?: unknown; priority_type?: unknown };
    set("departments", o.name, "department.name");
    set("departments_mode", o.priority_type, "department.priority_type");
  }
  return out;
}

/** Options every type takes; the rest must be declared by the type (an option with no effect is refused). */
const COMMON = new Set(["name", "list", "data", "has_header", "delimiter", "launch", "webhook_url", "notify", "total"]);

/** Validated create options for a type, with former names translated. */
export function parseCreateOptions(raw: Record<string, unknown>, type: BulkType): CreateOptions {
  const translated = translateLegacy(raw, type);
  const parsed = CreateOptionsSchema.safeParse(translated);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.code === "unrecognized_keys") {
      throw new ApiError(400, "params_invalid", `The parameter '${issue.keys[0]}' is not a bulk option.`);
    }
    throw new ApiError(400, "params_invalid", describeIssue(parsed.error));
  }
  const options = parsed.data as CreateOptions;
  const declared = new Set(type.decl.options.map((o) => o.name));
  const fields = new Set(type.decl.fields.map((f) => f.field));
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || COMMON.has(key)) continue;
    if ((FIELD_INDEX_NAMES as readonly string[]).includes(key)) {
      if (!fields.has(key))
        throw new ApiError(
          400,
          "params_invalid",
          `The parameter '${key}' does not apply to ${type.type} jobs (columns: ${[...fields].join(", ")}).`,
        );
      continue;
    }
    if (
      key === "input_type" &&
      type.decl.fields.some((f) => f.param === "company") &&
      type.decl.fields.some((f) => f.param === "domain")
    )
      continue;
    // Domain Search scores every address from the pages showing it: true is what happens, false cannot be honoured.
    if (key === "boost_score_from_sources" && type.type === "search") {
      if (value === false)
        throw new ApiError(
          400,
          "params_invalid",
          "The parameter 'boost_score_from_sources' cannot be false for search jobs: listed addresses are scored from the pages showing them.",
        );
      continue;
    }
    if (!declared.has(key))
      throw new ApiError(400, "params_invalid", `The parameter '${key}' does not apply to ${type.type} jobs.`);
  }
  for (const [mode, of] of [
    ["email_type_mode", "email_type"],
    ["departments_mode", "departments"],
  ] as const) {
    if (options[mode] !== undefined && options[of] === undefined)
      throw new ApiError(400, "params_invalid", `The parameter '${mode}' needs '${of}'.`);
  }
  const inputs = [options.list !== undefined, options.data !== undefined].filter(Boolean).length;
  if (inputs > 1) throw new ApiError(400, "params_invalid", "Send exactly one of 'file', 'data' or 'list'.");
  return options;
}

/** The capability-facing option values (what `paramsFor` reads). */
export function rowOptions(options: CreateOptions): BulkOptionValues {
  const out: BulkOptionValues = {};
  for (const [k, v] of Object.entries(options)) {
    if (k === "name" || k === "list" || k === "data" || k === "webhook_url") continue;
    if (v !== undefined) out[k] = v as BulkOptionValues[string];
  }
  return out;
}
