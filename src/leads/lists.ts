import { z } from "@hono/zod-openapi";
import { and, asc, count, eq, inArray } from "drizzle-orm";
import { db } from "../db/client.js";
import { type LeadListRow, leadLists, leads } from "../db/schema-leads.js";
import type { Env } from "../env.js";
import { rfc3339 } from "../platform/time.js";
import { notFound } from "./shared.js";

export const LeadListSchema = z
  .object({
    id: z.number().int(),
    list_id: z.number().int(),
    name: z.string(),
    favorite: z.boolean(),
    type: z.string().openapi({ example: "campaigns" }),
    size: z.number().int().openapi({ description: "Number of leads in the list" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("LeadList");
export type LeadList = z.infer<typeof LeadListSchema>;

export const ListNameSchema = z.string().trim().min(1).max(100);

export function renderList(row: LeadListRow, size: number): LeadList {
  return {
    id: row.id,
    list_id: row.id,
    name: row.name,
    favorite: row.favorite,
    type: row.type,
    size,
    created_at: rfc3339(row.createdAt),
    updated_at: rfc3339(row.updatedAt),
  };
}

/** Lead counts per list id (lists without leads are absent). */
export async function listSizes(env: Env, accountId: number, listIds: number[]): Promise<Map<number, number>> {
  if (listIds.length === 0) return new Map();
  const rows = await db(env.DB)
    .select({ listId: leads.listId, n: count() })
    .from(leads)
    .where(and(eq(leads.accountId, accountId), inArray(leads.listId, listIds)))
    .groupBy(leads.listId);
  const sizes = new Map<number, number>();
  for (const r of rows) if (r.listId !== null) sizes.set(r.listId, r.n);
  return sizes;
}

export async function allLists(env: Env, accountId: number): Promise<LeadListRow[]> {
  return db(env.DB).select().from(leadLists).where(eq(leadLists.accountId, accountId)).orderBy(asc(leadLists.id));
}

export async function findList(env: Env, accountId: number, id: number): Promise<LeadListRow> {
  const [row] = await db(env.DB)
    .select()
    .from(leadLists)
    .where(and(eq(leadLists.accountId, accountId), eq(leadLists.id, id)))
    .limit(1);
  if (!row) throw notFound("lead list", id);
  return row;
}
