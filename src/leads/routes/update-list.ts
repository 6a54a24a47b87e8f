import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, ne } from "drizzle-orm";
import { db } from "../../db/client.js";
import { leadLists } from "../../db/schema-leads.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { findList, ListNameSchema } from "../lists.js";
import {
  EMPTY_UPDATE_MESSAGE,
  IdParam,
  isUniqueViolation,
  jsonBody,
  jsonContent,
  MutationSchema,
  nonEmpty,
  ownerOf,
  recordId,
  uniqueKey,
} from "../shared.js";
import { duplicateList } from "./create-list.js";

const UpdateListBody = z
  .strictObject({ name: ListNameSchema.optional(), favorite: z.boolean().optional() })
  .openapi("UpdateLeadList");

const route = createRoute({
  method: "put",
  path: "/leads_lists/{id}",
  tags: ["Lead lists"],
  security,
  summary: "Rename a lead list or mark it favorite",
  request: { params: IdParam, body: jsonBody(UpdateListBody) },
  responses: { 200: jsonContent("Updated", MutationSchema), ...ErrorResponses },
});

export function registerUpdateList(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const body = c.req.valid("json");
    if (!nonEmpty(body)) throw new ApiError(400, "params_invalid", EMPTY_UPDATE_MESSAGE);
    const accountId = ownerOf(c);
    const list = await findList(c.env, accountId, recordId(c.req.valid("param").id, "lead list"));
    const store = db(c.env.DB);
    const nameKey = body.name !== undefined ? uniqueKey(body.name) : undefined;
    if (body.name !== undefined) {
      const [taken] = await store
        .select({ id: leadLists.id })
        .from(leadLists)
        .where(
          and(
            eq(leadLists.accountId, accountId),
            eq(leadLists.nameKey, uniqueKey(body.name)),
            ne(leadLists.id, list.id),
          ),
        )
        .limit(1);
      if (taken) throw duplicateList(body.name);
    }
    try {
      await store
        .update(leadLists)
        .set({
          ...(body.name !== undefined ? { name: body.name, nameKey } : {}),
          ...(body.favorite !== undefined ? { favorite: body.favorite } : {}),
          updatedAt: Date.now(),
        })
        .where(and(eq(leadLists.id, list.id), eq(leadLists.accountId, accountId)));
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateList(body.name ?? list.name);
      throw err;
    }
    return c.json({ status: true, message: `The list "${body.name ?? list.name}" was updated.` }, 200);
  });
}
