import { createRoute, z } from "@hono/zod-openapi";
import { db } from "../../db/client.js";
import { leadAttributes } from "../../db/schema-leads.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { planFor } from "../../limits/plans.js";
import {
  ATTRIBUTE_TYPES,
  AttributeNameSchema,
  AttributeSchema,
  allAttributes,
  renderAttribute,
  slugify,
} from "../attributes.js";
import {
  IdParam,
  isLiteralIdTemplate,
  isUniqueViolation,
  jsonBody,
  jsonContent,
  type LeadsCtx,
  MutationSchema,
  ownerOf,
  uniqueKey,
} from "../shared.js";
import { ATTRIBUTE_PREFIXES } from "./list-attributes.js";

const CreateAttributeBody = z
  .strictObject({ name: AttributeNameSchema, type: z.enum(ATTRIBUTE_TYPES).default("string") })
  .openapi("CreateLeadAttribute");
const CreatedAttributeSchema = MutationSchema.extend({ data: AttributeSchema }).openapi("CreatedLeadAttribute");

export const duplicateAttribute = (name: string) =>
  new ApiError(422, "duplicate_record", `A lead attribute named "${name}" already exists.`);

async function createAttribute(c: LeadsCtx, body: z.infer<typeof CreateAttributeBody>) {
  const accountId = ownerOf(c);
  const plan = planFor(c.get("auth").account.plan);
  const existing = await allAttributes(c.env, accountId);
  if (existing.length >= plan.caps.attributes) {
    throw new ApiError(
      422,
      "attributes_limit_reached",
      `Your ${plan.label} plan allows ${plan.caps.attributes} lead attributes (available_attr); delete one before creating another.`,
    );
  }
  if (existing.some((a) => uniqueKey(a.name) === uniqueKey(body.name))) throw duplicateAttribute(body.name);
  // The identifier is derived once and never changes; a clash with another name's slug gets a suffix.
  const taken = new Set(existing.map((a) => a.identifier));
  const base = slugify(body.name);
  let identifier = base;
  for (let n = 2; taken.has(identifier); n++) identifier = `${base}_${n}`;
  const now = Date.now();
  try {
    const [row] = await db(c.env.DB)
      .insert(leadAttributes)
      .values({ accountId, name: body.name, identifier, type: body.type, createdAt: now, updatedAt: now })
      .returning();
    if (!row) throw new Error("inserting a lead attribute returned no row");
    return {
      status: true,
      message: `The attribute "${row.name}" was created with the identifier ${row.identifier}.`,
      data: renderAttribute(row),
    };
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateAttribute(body.name);
    throw err;
  }
}

export function registerCreateAttribute(v1: ApiApp) {
  for (const prefix of ATTRIBUTE_PREFIXES) {
    const route = createRoute({
      method: "post",
      path: prefix,
      tags: ["Lead attributes"],
      security,
      summary: "Create a lead attribute (422 for a taken name or the plan's cap)",
      request: { body: jsonBody(CreateAttributeBody) },
      responses: { 200: jsonContent("Created", CreatedAttributeSchema), ...ErrorResponses },
    });
    v1.openapi(route, async (c) => c.json(await createAttribute(c, c.req.valid("json")), 200));
    const templateRoute = createRoute({
      method: "post",
      path: `${prefix}/{id}`,
      hide: true,
      tags: ["Lead attributes"],
      security,
      request: { params: IdParam, body: jsonBody(CreateAttributeBody) },
      responses: { 200: jsonContent("Created", CreatedAttributeSchema), ...ErrorResponses },
    });
    v1.openapi(templateRoute, async (c) => {
      if (!isLiteralIdTemplate(c.req.valid("param").id))
        throw new ApiError(
          404,
          "unknown_route",
          `Create attributes with POST /v1${prefix}; change one with PUT /v1${prefix}/{id}.`,
        );
      return c.json(await createAttribute(c, c.req.valid("json")), 200);
    });
  }
}
