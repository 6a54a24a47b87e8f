import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, desc, eq, inArray, type SQL } from "drizzle-orm";
import { db } from "../../db/client.js";
import { leadLists, leads } from "../../db/schema-leads.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { describeIssue, queryInt } from "../../http/validation.js";
import { LEAD_SORT_FIELDS, LeadSchema, renderLead } from "../lead.js";
import { listSizes } from "../lists.js";
import { ClassicMetaSchema, classicMeta, jsonContent, type LeadsCtx, ownerOf, pageQuery } from "../shared.js";

export const ListLeadsQuery = z.object({
  ...pageQuery(10),
  list: queryInt({ min: 1 }).openapi({ description: "Only leads of this list id" }),
  sortby: z.enum(LEAD_SORT_FIELDS).default("id"),
  direction: z.enum(["asc", "desc"]).default("desc"),
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .min(1)
    .max(253)
    .optional()
    .openapi({ description: "Only leads whose email is at this domain" }),
});

export const LeadPageSchema = z
  .object({ data: z.object({ leads: z.array(LeadSchema), meta: ClassicMetaSchema }) })
  .openapi("LeadPage");
export type LeadPage = z.infer<typeof LeadPageSchema>;

const SORT_COLUMNS = {
  id: leads.id,
  email: leads.emailKey,
  first_name: leads.firstName,
  last_name: leads.lastName,
  country: leads.country,
  website_url: leads.websiteUrl,
  company: leads.company,
  position: leads.position,
  score: leads.score,
  created_at: leads.createdAt,
  updated_at: leads.updatedAt,
} as const;

export async function listLeads(
  c: LeadsCtx,
  query: z.infer<typeof ListLeadsQuery>,
): Promise<z.infer<typeof LeadPageSchema>> {
  const accountId = ownerOf(c);
  const store = db(c.env.DB);
  const where: SQL | undefined = and(
    eq(leads.accountId, accountId),
    query.list !== undefined ? eq(leads.listId, query.list) : undefined,
    query.domain !== undefined ? eq(leads.domain, query.domain) : undefined,
  );
  const order = query.direction === "asc" ? asc : desc;
  const [rows, total] = await Promise.all([
    store
      .select()
      .from(leads)
      .where(where)
      .orderBy(order(SORT_COLUMNS[query.sortby]), order(leads.id))
      .limit(query.limit)
      .offset((query.page - 1) * query.limit),
    store.$count(leads, where),
  ]);
  const listIds = [...new Set(rows.map((r) => r.listId).filter((id): id is number => id !== null))];
  const [lists, sizes] = await Promise.all([
    listIds.length
      ? store
          .select()
          .from(leadLists)
          .where(and(eq(leadLists.accountId, accountId), inArray(leadLists.id, listIds)))
      : Promise.resolve([]),
    listSizes(c.env, accountId, listIds),
  ]);
  const listById = new Map(lists.map((l) => [l.id, l]));
  return {
    data: {
      leads: rows.map((r) => {
        const list = r.listId !== null ? listById.get(r.listId) : undefined;
        return renderLead(r, list ? { row: list, size: sizes.get(list.id) ?? 0 } : null);
      }),
      meta: classicMeta(total, query.page, query.limit),
    },
  };
}

/** The list query read by hand, for the id-less `GET /leads/{id}` form. */
export function parseListLeadsQuery(c: LeadsCtx): z.infer<typeof ListLeadsQuery> {
  const parsed = ListLeadsQuery.safeParse(c.req.query());
  if (!parsed.success) throw new ApiError(400, "params_invalid", describeIssue(parsed.error));
  return parsed.data;
}

const route = createRoute({
  method: "get",
  path: "/leads",
  tags: ["Leads"],
  security,
  summary: "List leads (classic pagination in data.meta)",
  request: { query: ListLeadsQuery },
  responses: { 200: jsonContent("Leads", LeadPageSchema), ...ErrorResponses },
});

export function registerListLeads(v1: ApiApp) {
  v1.openapi(route, async (c) => c.json(await listLeads(c, c.req.valid("query")), 200));
}
