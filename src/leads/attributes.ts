import { z } from "@hono/zod-openapi";
import { and, asc, eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { type LeadAttributeRow, leadAttributes } from "../db/schema-leads.js";
import type { Env } from "../env.js";
import { ApiError } from "../http/errors.js";
import { asciiFold } from "../platform/ascii-fold.js";
import { parseInstant, rfc3339 } from "../platform/time.js";
import { notFound } from "./shared.js";

export const ATTRIBUTE_TYPES = ["string", "date", "number"] as const;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

export const AttributeSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    identifier: z
      .string()
      .openapi({ description: "Read-only slug of the name; the key of this attribute in a lead's `attributes`" }),
    type: z.enum(ATTRIBUTE_TYPES),
    date_created: z.string(),
    date_modified: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("LeadAttribute");
export type LeadAttribute = z.infer<typeof AttributeSchema>;

export const AttributeNameSchema = z.string().trim().min(1).max(100);

export function renderAttribute(row: LeadAttributeRow): LeadAttribute {
  const created = rfc3339(row.createdAt);
  const modified = rfc3339(row.updatedAt);
  return {
    id: row.id,
    name: row.name,
    identifier: row.identifier,
    type: row.type as AttributeType,
    date_created: created,
    date_modified: modified,
    created_at: created,
    updated_at: modified,
  };
}

/** "Deal Size (€)" -> "deal_size": lowercase ASCII letters, digits and underscores. */
export function slugify(name: string): string {
  const ascii = asciiFold(name, { compatibility: true }).toLowerCase();
  const slug = ascii
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 60);
  return slug || "attribute";
}

export async function allAttributes(env: Env, accountId: number): Promise<LeadAttributeRow[]> {
  return db(env.DB)
    .select()
    .from(leadAttributes)
    .where(eq(leadAttributes.accountId, accountId))
    .orderBy(asc(leadAttributes.id));
}

export async function findAttribute(env: Env, accountId: number, id: number): Promise<LeadAttributeRow> {
  const [row] = await db(env.DB)
    .select()
    .from(leadAttributes)
    .where(and(eq(leadAttributes.accountId, accountId), eq(leadAttributes.id, id)))
    .limit(1);
  if (!row) throw notFound("lead attribute", id);
  return row;
}

export type AttributeValue = string | number;

/**
 * Checks custom attribute values of a lead against the account's attributes: every key must be an
 * existing identifier and every value must fit its type (numbers as numbers, dates as YYYY-MM-DD or
 * RFC 3339, kept as given). `null` removes the value.
 */
export function checkAttributeValues(
  defined: LeadAttributeRow[],
  values: Record<string, unknown>,
): Record<string, AttributeValue | null> {
  const byIdentifier = new Map(defined.map((a) => [a.identifier, a]));
  const out: Record<string, AttributeValue | null> = {};
  for (const [identifier, value] of Object.entries(values)) {
    const attr = byIdentifier.get(identifier);
    const bad = (why: string) =>
      new ApiError(400, "params_invalid", `The parameter 'attributes.${identifier}' is invalid: ${why}.`);
    if (!attr) throw bad("no lead attribute has this identifier (create it with POST /v1/attributes)");
    if (value === null) {
      out[identifier] = null;
      continue;
    }
    if (attr.type === "number") {
      const n =
        typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
      if (!Number.isFinite(n)) throw bad("expected a number");
      out[identifier] = n;
    } else if (attr.type === "date") {
      if (typeof value !== "string" || parseInstant(value.trim()) === null)
        throw bad("expected a date (YYYY-MM-DD or RFC 3339)");
      out[identifier] = value.trim();
    } else {
      if (typeof value !== "string" && typeof value !== "number") throw bad("expected a string");
      const text = String(value);
      if (text.length > 1_000) throw bad("at most 1000 characters");
      out[identifier] = text;
    }
  }
  return out;
}
