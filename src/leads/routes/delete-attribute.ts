import { createRoute } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { db } from "../../db/client.js";
import { leadAttributes, leads } from "../../db/schema-leads.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { findAttribute } from "../attributes.js";
import { IdParam, jsonContent, MutationSchema, ownerOf, recordId } from "../shared.js";
import { ATTRIBUTE_PREFIXES } from "./list-attributes.js";

export function registerDeleteAttribute(v1: ApiApp) {
  for (const prefix of ATTRIBUTE_PREFIXES) {
    const route = createRoute({
      method: "delete",
      path: `${prefix}/{id}`,
      tags: ["Lead attributes"],
      security,
      summary: "Delete a lead attribute and its values on every lead",
      request: { params: IdParam },
      responses: { 200: jsonContent("Deleted", MutationSchema), ...ErrorResponses },
    });
    v1.openapi(route, async (c) => {
      const accountId = ownerOf(c);
      const attribute = await findAttribute(c.env, accountId, recordId(c.req.valid("param").id, "lead attribute"));
      const store = db(c.env.DB);
      const path = `$."${attribute.identifier}"`;
      await store.batch([
        store
          .update(leads)
          .set({ attributes: sql`json_remove(${leads.attributes}, ${path})` })
          .where(and(eq(leads.accountId, accountId), sql`json_type(${leads.attributes}, ${path}) IS NOT NULL`)),
        store
          .delete(leadAttributes)
          .where(and(eq(leadAttributes.id, attribute.id), eq(leadAttributes.accountId, accountId))),
      ]);
      return c.json({ status: true, message: `The attribute "${attribute.name}" was deleted.` }, 200);
    });
  }
}
