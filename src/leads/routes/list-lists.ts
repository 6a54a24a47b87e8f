import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { allLists, LeadListSchema, listSizes, renderList } from "../lists.js";
import { jsonContent, type LeadsCtx, ownerOf } from "../shared.js";

export const ListsSchema = z.object({ data: z.object({ list_leads: z.array(LeadListSchema) }) }).openapi("LeadLists");
export type LeadLists = z.infer<typeof ListsSchema>;

export async function listLists(c: LeadsCtx): Promise<z.infer<typeof ListsSchema>> {
  const accountId = ownerOf(c);
  const rows = await allLists(c.env, accountId);
  const sizes = await listSizes(
    c.env,
    accountId,
    rows.map((r) => r.id),
  );
  return { data: { list_leads: rows.map((r) => renderList(r, sizes.get(r.id) ?? 0)) } };
}

const route = createRoute({
  method: "get",
  path: "/leads_lists",
  tags: ["Lead lists"],
  security,
  summary: "List the account's lead lists",
  responses: { 200: jsonContent("Lead lists", ListsSchema), ...ErrorResponses },
});

export function registerListLists(v1: ApiApp) {
  v1.openapi(route, async (c) => c.json(await listLists(c), 200));
}
