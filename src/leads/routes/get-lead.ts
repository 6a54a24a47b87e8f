import { createRoute, z } from "@hono/zod-openapi";
import type { leadLists } from "../../db/schema-leads.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { findLead, LeadSchema, renderLead } from "../lead.js";
import { findList, listSizes } from "../lists.js";
import { IdParam, isLiteralIdTemplate, jsonContent, type LeadsCtx, ownerOf, recordId } from "../shared.js";
import { LeadPageSchema, listLeads, parseListLeadsQuery } from "./list-leads.js";

const OneLeadSchema = z.object({ data: z.object({ leads: z.array(LeadSchema).length(1) }) }).openapi("OneLead");

export async function renderOwnLead(c: LeadsCtx, id: number) {
  const accountId = ownerOf(c);
  const row = await findLead(c.env, accountId, id);
  let list: { row: typeof leadLists.$inferSelect; size: number } | null = null;
  if (row.listId !== null) {
    const listRow = await findList(c.env, accountId, row.listId).catch(() => null);
    if (listRow) list = { row: listRow, size: (await listSizes(c.env, accountId, [listRow.id])).get(listRow.id) ?? 0 };
  }
  return renderLead(row, list);
}

const route = createRoute({
  method: "get",
  path: "/leads/{id}",
  tags: ["Leads"],
  security,
  summary: "One lead, as data.leads[] with one element (a literal {id} lists leads instead)",
  request: { params: IdParam },
  responses: { 200: jsonContent("The lead", z.union([OneLeadSchema, LeadPageSchema])), ...ErrorResponses },
});

export function registerGetLead(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    if (isLiteralIdTemplate(id)) return c.json(await listLeads(c, parseListLeadsQuery(c)), 200);
    return c.json({ data: { leads: [await renderOwnLead(c, recordId(id, "lead"))] } }, 200);
  });
}
