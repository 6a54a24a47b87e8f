import { z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { SocialFieldsSchema, socialFields } from "../capabilities/shapes/social-fields.js";
import { db } from "../db/client.js";
import { type LeadListRow, type LeadRow, leads } from "../db/schema-leads.js";
import { finderFactsOf } from "../engine/index/people.js";
import type { Env } from "../env.js";
import { ApiError } from "../http/errors.js";
import { rfc3339 } from "../platform/time.js";
import { notFound } from "./shared.js";

export const LEAD_SOURCES = ["domain", "finder", "verify", "browser"] as const;
export const LEAD_SORT_FIELDS = [
  "id",
  "email",
  "first_name",
  "last_name",
  "country",
  "website_url",
  "company",
  "position",
  "score",
  "created_at",
  "updated_at",
] as const;

const SYNC_FLAGS = { sync_airtable: false, sync_hubspot: false, sync_mailchimp: false, sync_pipedrive: false };

export const LeadSchema = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    email: z.string(),
    list_id: z.number().int().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    country: z.string().nullable(),
    website_url: z.string().nullable(),
    company: z.string().nullable(),
    position: z.string().nullable(),
    phone_number: z.string().nullable(),
    ...SocialFieldsSchema.shape,
    notes: z.string().nullable(),
    score: z.number().int().nullable(),
    lead_source: z.enum(LEAD_SOURCES).nullable(),
    sync_status: z.null(),
    sync: z.object({
      sync_airtable: z.boolean(),
      sync_hubspot: z.boolean(),
      sync_mailchimp: z.boolean(),
      sync_pipedrive: z.boolean(),
    }),
    sync_airtable: z.boolean(),
    sync_hubspot: z.boolean(),
    sync_mailchimp: z.boolean(),
    sync_pipedrive: z.boolean(),
    leads_list: z.object({ list_id: z.number().int(), name: z.string(), size: z.number().int() }).nullable(),
    attributes: z
      .record(z.string(), z.union([z.string(), z.number()]))
      .openapi({ description: "Custom attribute values by identifier" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Lead");
export type Lead = z.infer<typeof LeadSchema>;

export function renderLead(row: LeadRow, list: { row: LeadListRow; size: number } | null): Lead {
  return {
    id: row.id,
    user_id: row.accountId,
    email: row.email,
    list_id: row.listId,
    first_name: row.firstName,
    last_name: row.lastName,
    country: row.country,
    website_url: row.websiteUrl,
    company: row.company,
    position: row.position,
    phone_number: row.phoneNumber,
    ...socialFields(row),
    notes: row.notes,
    score: row.score,
    lead_source: (row.leadSource as Lead["lead_source"]) ?? null,
    sync_status: null,
    sync: { ...SYNC_FLAGS },
    ...SYNC_FLAGS,
    leads_list: list ? { list_id: list.row.id, name: list.row.name, size: list.size } : null,
    attributes: JSON.parse(row.attributes) as Lead["attributes"],
    created_at: rfc3339(row.createdAt),
    updated_at: rfc3339(row.updatedAt),
  };
}

/** The save_lead event body: `{data: Lead}` with the spec's fields (and the older social names). */
export function saveLeadPayload(row: LeadRow) {
  return {
    data: {
      id: row.id,
      email: row.email,
      website: row.websiteUrl,
      company: row.company,
      first_name: row.firstName,
      last_name: row.lastName,
      phone: row.phoneNumber,
      position: row.position,
      ...socialFields(row),
      notes: row.notes,
      score: row.score,
      list_id: row.listId,
      attributes: JSON.parse(row.attributes) as Record<string, unknown>,
    },
  };
}

const text = (max: number) => z.string().trim().max(max).nullable().optional();
const url = text(500);

/**
 * Every writable lead field, under its current name and the older names clients still send
 * (`twitter`, `linkedin`, `linkedin_url`, `website`, `phone`, `list`). Unknown fields are refused.
 */
const LeadFieldsShape = {
  email: z.string().trim().toLowerCase().email({ message: "expected an email address" }).max(254),
  list_id: z.number().int().min(1).nullable().optional().openapi({ description: "Lead list id (older name: list)" }),
  list: z.number().int().min(1).nullable().optional().openapi({ description: "Older name of list_id" }),
  first_name: text(100),
  last_name: text(100),
  country: text(100),
  website_url: url,
  website: url.openapi({ description: "Older name of website_url" }),
  company: text(200),
  position: text(200),
  phone_number: text(50),
  phone: text(50).openapi({ description: "Older name of phone_number" }),
  microblog: url,
  twitter: url.openapi({ description: "Older name of microblog" }),
  professional_network: url,
  linkedin: url.openapi({ description: "Older name of professional_network" }),
  linkedin_url: url.openapi({ description: "Older name of professional_network" }),
  notes: text(5_000),
  score: z.number().int().min(0).max(100).nullable().optional(),
  lead_source: z.enum(LEAD_SOURCES).nullable().optional(),
  attributes: z
    .record(z.string(), z.union([z.string(), z.number(), z.null()]))
    .optional()
    .openapi({ description: "Custom attribute values by identifier; null removes one", example: { deal_size: 12000 } }),
};

/** Pairs of names for one field: both may be sent only with the same value. */
const ALIASES: [string, string[]][] = [
  ["list_id", ["list"]],
  ["website_url", ["website"]],
  ["phone_number", ["phone"]],
  ["microblog", ["twitter"]],
  ["professional_network", ["linkedin", "linkedin_url"]],
];

const noConflictingAliases = (body: Record<string, unknown>, ctx: z.RefinementCtx) => {
  for (const [name, older] of ALIASES) {
    const given = [name, ...older].filter((k) => body[k] !== undefined);
    const [first, second] = given;
    if (second !== undefined && new Set(given.map((k) => JSON.stringify(body[k]))).size > 1) {
      ctx.addIssue({
        code: "custom",
        path: [second],
        message: `'${first}' and '${second}' name the same field and disagree`,
      });
    }
  }
};

export const CreateLeadBody = z.strictObject(LeadFieldsShape).superRefine(noConflictingAliases).openapi("CreateLead");
export const UpdateLeadBody = z
  .strictObject({ ...LeadFieldsShape, email: LeadFieldsShape.email.optional() })
  .superRefine(noConflictingAliases)
  .openapi("UpdateLead");
export type LeadInput = z.infer<typeof UpdateLeadBody>;

/** Column values for the fields present in a create or update body (aliases folded into their current names). */
export function leadColumns(body: LeadInput): Partial<typeof leads.$inferInsert> {
  const pick = <T>(...values: (T | undefined)[]) => values.find((v) => v !== undefined);
  const columns: Partial<typeof leads.$inferInsert> = {
    email: body.email,
    emailKey: body.email,
    domain: body.email ? body.email.slice(body.email.lastIndexOf("@") + 1) : undefined,
    listId: pick(body.list_id, body.list),
    firstName: body.first_name,
    lastName: body.last_name,
    country: body.country,
    websiteUrl: pick(body.website_url, body.website),
    company: body.company,
    position: body.position,
    phoneNumber: pick(body.phone_number, body.phone),
    microblog: pick(body.microblog, body.twitter),
    professionalNetwork: pick(body.professional_network, body.linkedin, body.linkedin_url),
    notes: body.notes,
    score: body.score,
    leadSource: body.lead_source,
  };
  return Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== undefined));
}

/**
 * A lead saved without a website or a score takes them from what the finder knows of its address,
 * so the save_lead event (where both are required fields) carries them. What the caller sent
 * (null included) and what the lead already holds are kept.
 */
export async function withFinderFacts(
  env: Env,
  email: string,
  columns: Partial<typeof leads.$inferInsert>,
  current?: Pick<LeadRow, "websiteUrl" | "score">,
): Promise<Partial<typeof leads.$inferInsert>> {
  const wantsWebsite = columns.websiteUrl === undefined && !current?.websiteUrl;
  const wantsScore = columns.score === undefined && (current?.score ?? null) === null;
  if (!wantsWebsite && !wantsScore) return columns;
  const facts = await finderFactsOf(env, email);
  if (!facts) return columns;
  return {
    ...columns,
    ...(wantsWebsite ? { websiteUrl: facts.website } : {}),
    ...(wantsScore ? { score: facts.score } : {}),
  };
}

export async function findLead(env: Env, accountId: number, id: number): Promise<LeadRow> {
  const [row] = await db(env.DB)
    .select()
    .from(leads)
    .where(and(eq(leads.accountId, accountId), eq(leads.id, id)))
    .limit(1);
  if (!row) throw notFound("lead", id);
  return row;
}

export async function assertEmailFree(env: Env, accountId: number, email: string, exceptId?: number): Promise<void> {
  const [row] = await db(env.DB)
    .select({ id: leads.id })
    .from(leads)
    .where(and(eq(leads.accountId, accountId), eq(leads.emailKey, email)))
    .limit(1);
  if (row && row.id !== exceptId) throw duplicateLead(email);
}

export const duplicateLead = (email: string) =>
  new ApiError(422, "duplicate_record", `A lead with the email ${email} already exists.`);
