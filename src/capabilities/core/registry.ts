import type { z } from "@hono/zod-openapi";
import type { Env } from "../../env.js";
import type { CreditBalance, CreditCost, RateGroup } from "../../limits/groups.js";

/**
 * A capability is declared once: its parameters, price, rate-limit group and handler. The /v1 routes,
 * the OpenAPI documents, the agent surface and bulk jobs are all built from these declarations.
 */

import type { Memo } from "../../engine/memo.js";

export type UsageCategory =
  | "search"
  | "verifier"
  | "phones"
  | "sources"
  | "similar"
  | "technologies"
  | "email_count"
  | "export";

export interface CapabilityContext {
  env: Env;
  now: () => number;
  waitUntil(promise: Promise<unknown>): void;
  /** Which surface asked; capabilities answer the same everywhere, this is for logging and limits. */
  surface: "v1" | "agent" | "bulk";
  accountId: number;
  /** Bulk batches share domain-level lookups between their rows (see engine/memo.ts); absent elsewhere. */
  memo?: Memo;
}

export interface CapabilityResult<Body = unknown> {
  /** The answer, as the capability's `response` schema documents it. */
  body: Body;
  headers?: Record<string, string>;
  /**
   * False when the lookup found nothing: the reserved credits are refunded. Rate-limit counting is
   * unaffected (every accepted request counts).
   */
  found: boolean;
  /** Credits beyond the base cost that this answer used (e.g. enrich_mobile adds phone credits). */
  extraCost?: Partial<Record<CreditBalance, number>>;
  /**
   * Set when the answer waits on a deferred SMTP check (greylisting, the mail host's pace): why, in
   * words. Such an answer is not billed (`found` false); a bulk job shows the row as waiting.
   */
  waiting?: string;
}

export type { CreditCost } from "../../limits/groups.js";

/**
 * `P` is the parameters schema, `R` the response schema: the handler receives what `P` parses to
 * and must return what `R` documents.
 */
export interface Capability<P extends z.ZodObject = z.ZodObject, R extends z.ZodType = z.ZodType> {
  /** Stable id, also the agent-surface path without the slash: "email-finder". */
  name: string;
  /** Human label used in logs: "Email Finder". */
  label: string;
  summary: string;
  /** OpenAPI tag. */
  tag: string;
  /** /v1 paths in OpenAPI syntax; the first is canonical. Path parameters share names with `params`. */
  paths: string[];
  /** Extra /v1 paths served but left out of the OpenAPI document (paths existing clients call). */
  aliases?: string[];
  /** /v1 accepts `webhook_url`: the answer is also POSTed there afterwards (src/delivery/callback.ts). */
  acceptsCallback?: boolean;
  /** Root path on the agent surface when it is sold there. */
  agentPath?: string;
  params: P;
  /** Null: never rate-limited (e.g. domain-status). */
  rateGroup: RateGroup | null;
  /** Null: free. */
  cost: CreditCost | null;
  /** Extra credits a request will need for its options, reserved up front (e.g. enrich_mobile). */
  extraCostFor?(params: z.infer<P>): Partial<Record<CreditBalance, number>>;
  /**
   * How the 402 for an empty balance is presented: most answer 402 quota_exceeded, a few answer
   * 429 without Retry-After (spec: email count, format, location, sources).
   */
  exhaustedAs?: "quota_exceeded" | "rate_limit";
  /** Header naming the estimated cost on a 402 (Domain Search: X-Estimated-Cost). */
  estimatedCostHeader?: string;
  /**
   * Headers naming the account's allowance and what is left of this capability's credit balance
   * (Email Format: X-Count-Limit / X-Count-Remaining).
   */
  quotaHeaders?: { limit: string; remaining: string };
  usageCategory: UsageCategory;
  /**
   * Response body schema: the OpenAPI documents show it and the handler's `body` must match it.
   * Every capability the service sells declares one; without it the answer is documented as an object.
   */
  response?: R;
  /** Present when the capability can run as a bulk job (src/bulk derives its types from this). */
  bulk?: BulkDeclaration<z.infer<P>>;
  handler(params: z.infer<P>, ctx: CapabilityContext): Promise<CapabilityResult<z.infer<R>>>;
}

/**
 * Any capability, its parameter and answer types erased: what the lists, the executor and the
 * surfaces hold. A specific `Capability<P, R>` is one without a cast: its fields are covariant and
 * `handler`/`extraCostFor` are methods, which TypeScript compares by their parameters bivariantly;
 * the executor only ever passes a capability the parameters its own schema produced.
 */
export type AnyCapability = Capability<z.ZodObject, z.ZodType>;

/** One input column of a bulk job: which capability parameter it fills and how it is found. */
export interface BulkField {
  /** Capability parameter the column fills. */
  param: string;
  /** Zero-based create option naming the column: "domain_field_index". */
  field: string;
  label: string;
  /** Header cells (compared lower-cased, with spaces, dashes and underscores ignored) that name this column. */
  headerSynonyms: string[];
  /** Former one-based option naming the same column ("column_domain"). */
  legacyColumn?: string;
}

/** A create option of a bulk job, and what it does to each row's capability call. */
export interface BulkOption {
  name: string;
  kind: "boolean" | "integer" | "string" | "string[]";
  /** Former option name translated to this one ("verify" -> "verify_emails"). */
  legacyName?: string;
  description: string;
}

export type BulkOptionValues = Record<string, boolean | number | string | string[] | undefined>;

export interface BulkDeclaration<Params = Record<string, unknown>> {
  /** Path segment under /v1/bulk: "finder". */
  type: string;
  label: string;
  description: string;
  fields: BulkField[];
  /** Parameter a one-column input (`list`, or a file without a recognised header) fills. */
  primaryParam: string;
  /** Sets of parameters of which a row needs one complete set to be processed. */
  requires: string[][];
  options: BulkOption[];
  /**
   * The row's capability parameters as query-string values (validated by the capability's own
   * schema, like a /v1 call), from its cells by parameter name and the job's options.
   */
  paramsFor(cells: Record<string, string>, options: BulkOptionValues): Record<string, string>;
  /** Result columns appended to each output row: header -> dot path into the answer's `data` (the single call's answer). */
  resultColumns: Record<string, string>;
  /** Result columns an option adds when it is set and not false (option name -> header -> path), after resultColumns. */
  optionColumns?: Record<string, Record<string, string>>;
  /** Row goes to the `valid` download (default: something was found). */
  isValid?(data: unknown): boolean;
  /**
   * An answer that says the input itself is invalid (a phone number that is not one, an address
   * whose syntax is invalid): the reason. Such answers are not billed (found: false) and the row
   * counts as invalid input.
   */
  invalidInput?(data: unknown): string | null;
  /**
   * The domain (or company) a row's answer belongs to, for types whose row gives at most one
   * address: max_emails_per_domain then caps the rows of each domain.
   */
  domainOf?(cells: Record<string, string>): string | null;
  /**
   * Runs one row when the job's options shape the answer (filters, verification off, every phone
   * number); default: the capability's own handler, which `answer` calls. `note` says why an
   * answer was withheld.
   */
  run?(
    params: Params,
    ctx: CapabilityContext,
    options: BulkOptionValues,
    answer: (params: Params) => Promise<CapabilityResult>,
  ): Promise<BulkRowResult>;
}

/** A bulk row's answer: the capability's result, and why it was withheld when the job's filters withheld it. */
export type BulkRowResult = CapabilityResult & { note?: string };

export function defineCapability<P extends z.ZodObject, R extends z.ZodType>(
  capability: Capability<P, R>,
): Capability<P, R> {
  return capability;
}

/** A capability's canonical /v1 path (its first; every capability declares at least one). */
export function canonicalPath(capability: Pick<Capability, "name" | "paths">): string {
  const path = capability.paths[0];
  if (path === undefined) throw new Error(`The capability ${capability.name} declares no /v1 path.`);
  return path;
}
