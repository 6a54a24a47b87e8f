import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { AttributeSchema, findAttribute, renderAttribute } from "../attributes.js";
import { IdParam, isLiteralIdTemplate, jsonContent, ownerOf, recordId } from "../shared.js";
import { ATTRIBUTE_PREFIXES, AttributesSchema, listAttributes } from "./list-attributes.js";

const OneAttributeSchema = z
  .object({ data: z.object({ attributes: z.array(AttributeSchema).length(1) }) })
  .openapi("OneLeadAttribute");

export function registerGetAttribute(v1: ApiApp) {
  for (const prefix of ATTRIBUTE_PREFIXES) {
    const route = createRoute({
      method: "get",
      path: `${prefix}/{id}`,
      tags: ["Lead attributes"],
      security,
      summary: "One lead attribute as data.attributes[] (a literal {id} lists them all instead)",
      request: { params: IdParam },
      responses: {
        200: jsonContent("The attribute", z.union([OneAttributeSchema, AttributesSchema])),
        ...ErrorResponses,
      },
    });
    v1.openapi(route, async (c) => {
      const { id } = c.req.valid("param");
      if (isLiteralIdTemplate(id)) return c.json(await listAttributes(c), 200);
      const row = await findAttribute(c.env, ownerOf(c), recordId(id, "lead attribute"));
      return c.json({ data: { attributes: [renderAttribute(row)] } }, 200);
    });
  }
}
