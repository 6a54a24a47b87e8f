import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { leadAttributes } from "../../db/schema-leads.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { ATTRIBUTE_TYPES, AttributeNameSchema, allAttributes, findAttribute } from "../attributes.js";
import {
  EMPTY_UPDATE_MESSAGE,
  IdParam,
  jsonBody,
  jsonContent,
  MutationSchema,
  nonEmpty,
  ownerOf,
  recordId,
  uniqueKey,
} from "../shared.js";
import { duplicateAttribute } from "./create-attribute.js";
import { ATTRIBUTE_PREFIXES } from "./list-attributes.js";

// `identifier` is read-only: a body that sends it is refused (strict object), not silently ignored.
const UpdateAttributeBody = z
  .strictObject({ name: AttributeNameSchema.optional(), type: z.enum(ATTRIBUTE_TYPES).optional() })
  .openapi("UpdateLeadAttribute");

export function registerUpdateAttribute(v1: ApiApp) {
  for (const prefix of ATTRIBUTE_PREFIXES) {
    const route = createRoute({
      method: "put",
      path: `${prefix}/{id}`,
      tags: ["Lead attributes"],
      security,
      summary: "Rename a lead attribute or change its type (the identifier never changes)",
      request: { params: IdParam, body: jsonBody(UpdateAttributeBody) },
      responses: { 200: jsonContent("Updated", MutationSchema), ...ErrorResponses },
    });
    v1.openapi(route, async (c) => {
      const body = c.req.valid("json");
      if (!nonEmpty(body)) throw new ApiError(400, "params_invalid", EMPTY_UPDATE_MESSAGE);
      const accountId = ownerOf(c);
      const attribute = await findAttribute(c.env, accountId, recordId(c.req.valid("param").id, "lead attribute"));
      if (body.name !== undefined) {
        const others = (await allAttributes(c.env, accountId)).filter((a) => a.id !== attribute.id);
        const wanted = uniqueKey(body.name);
        if (others.some((a) => uniqueKey(a.name) === wanted)) throw duplicateAttribute(body.name);
      }
      await db(c.env.DB)
        .update(leadAttributes)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.type !== undefined ? { type: body.type } : {}),
          updatedAt: Date.now(),
        })
        .where(and(eq(leadAttributes.id, attribute.id), eq(leadAttributes.accountId, accountId)));
      return c.json({ status: true, message: `The attribute "${body.name ?? attribute.name}" was updated.` }, 200);
    });
  }
}
