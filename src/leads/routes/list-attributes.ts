import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { AttributeSchema, allAttributes, renderAttribute } from "../attributes.js";
import { ClassicMetaSchema, classicMeta, jsonContent, type LeadsCtx, ownerOf } from "../shared.js";

/** Lead attributes are served under both prefixes clients use (contract 5.7). */
export const ATTRIBUTE_PREFIXES = ["/attributes", "/leads/attributes"] as const;

export const AttributesSchema = z
  .object({ data: z.object({ attributes: z.array(AttributeSchema), meta: ClassicMetaSchema }) })
  .openapi("LeadAttributes");
export type LeadAttributes = z.infer<typeof AttributesSchema>;

export async function listAttributes(c: LeadsCtx): Promise<z.infer<typeof AttributesSchema>> {
  const rows = await allAttributes(c.env, ownerOf(c));
  return {
    data: { attributes: rows.map(renderAttribute), meta: classicMeta(rows.length, 1, Math.max(rows.length, 1)) },
  };
}

export function registerListAttributes(v1: ApiApp) {
  for (const prefix of ATTRIBUTE_PREFIXES) {
    const route = createRoute({
      method: "get",
      path: prefix,
      tags: ["Lead attributes"],
      security,
      summary: "List custom lead attributes",
      responses: { 200: jsonContent("Attributes", AttributesSchema), ...ErrorResponses },
    });
    v1.openapi(route, async (c) => c.json(await listAttributes(c), 200));
  }
}
