import { createRoute } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { leads } from "../../db/schema-leads.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { findLead } from "../lead.js";
import { IdParam, jsonContent, MutationSchema, ownerOf, recordId } from "../shared.js";

const route = createRoute({
  method: "delete",
  path: "/leads/{id}",
  tags: ["Leads"],
  security,
  summary: "Delete a lead",
  request: { params: IdParam },
  responses: { 200: jsonContent("Deleted", MutationSchema), ...ErrorResponses },
});

export function registerDeleteLead(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const accountId = ownerOf(c);
    const lead = await findLead(c.env, accountId, recordId(c.req.valid("param").id, "lead"));
    await db(c.env.DB)
      .delete(leads)
      .where(and(eq(leads.id, lead.id), eq(leads.accountId, accountId)));
    return c.json({ status: true, message: `The lead ${lead.email} was deleted.` }, 200);
  });
}
