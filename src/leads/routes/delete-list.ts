import { createRoute } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { leadLists, leads } from "../../db/schema-leads.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { findList } from "../lists.js";
import { IdParam, jsonContent, MutationSchema, ownerOf, recordId } from "../shared.js";

const route = createRoute({
  method: "delete",
  path: "/leads_lists/{id}",
  tags: ["Lead lists"],
  security,
  summary: "Delete a lead list (its leads stay, without a list)",
  request: { params: IdParam },
  responses: { 200: jsonContent("Deleted", MutationSchema), ...ErrorResponses },
});

export function registerDeleteList(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const accountId = ownerOf(c);
    const list = await findList(c.env, accountId, recordId(c.req.valid("param").id, "lead list"));
    const store = db(c.env.DB);
    // One transaction: the leads lose the list and the list goes, or neither happens.
    await store.batch([
      store
        .update(leads)
        .set({ listId: null })
        .where(and(eq(leads.accountId, accountId), eq(leads.listId, list.id))),
      store.delete(leadLists).where(and(eq(leadLists.id, list.id), eq(leadLists.accountId, accountId))),
    ]);
    return c.json({ status: true, message: `The list "${list.name}" was deleted.` }, 200);
  });
}
