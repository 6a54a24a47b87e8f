import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { findList, LeadListSchema, listSizes, renderList } from "../lists.js";
import { IdParam, isLiteralIdTemplate, jsonContent, ownerOf, recordId } from "../shared.js";
import { ListsSchema, listLists } from "./list-lists.js";

const OneListSchema = z
  .object({ data: z.array(LeadListSchema).length(1).openapi({ description: "An array holding the one list" }) })
  .openapi("OneLeadList");

const route = createRoute({
  method: "get",
  path: "/leads_lists/{id}",
  tags: ["Lead lists"],
  security,
  summary: "One lead list; `data` is an array holding it (a literal {id} lists them all instead)",
  request: { params: IdParam },
  responses: { 200: jsonContent("The list", z.union([OneListSchema, ListsSchema])), ...ErrorResponses },
});

export function registerGetList(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    if (isLiteralIdTemplate(id)) return c.json(await listLists(c), 200);
    const accountId = ownerOf(c);
    const row = await findList(c.env, accountId, recordId(id, "lead list"));
    const size = (await listSizes(c.env, accountId, [row.id])).get(row.id) ?? 0;
    return c.json({ data: [renderList(row, size)] }, 200);
  });
}
