import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { leadLists } from "../../db/schema-leads.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { planFor } from "../../limits/plans.js";
import { ListNameSchema } from "../lists.js";
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

export const CreateListBody = z
  .strictObject({ name: ListNameSchema, favorite: z.boolean().optional() })
  .openapi("CreateLeadList");
const CreatedListSchema = MutationSchema.extend({
  data: z.object({ id: z.number().int(), list_id: z.number().int(), name: z.string() }),
}).openapi("CreatedLeadList");

export const duplicateList = (name: string) =>
  new ApiError(422, "duplicate_record", `A lead list named "${name}" already exists.`);

async function createList(c: LeadsCtx, body: z.infer<typeof CreateListBody>) {
  const accountId = ownerOf(c);
  const plan = planFor(c.get("auth").account.plan);
  const store = db(c.env.DB);
  const held = await store.$count(leadLists, eq(leadLists.accountId, accountId));
  if (held >= plan.caps.lists) {
    throw new ApiError(
      422,
      "lists_limit_reached",
      `Your ${plan.label} plan allows ${plan.caps.lists} lead lists (available_list); delete one before creating another.`,
    );
  }
  const nameKey = uniqueKey(body.name);
  const [taken] = await store
    .select({ id: leadLists.id })
    .from(leadLists)
    .where(and(eq(leadLists.accountId, accountId), eq(leadLists.nameKey, nameKey)))
    .limit(1);
  if (taken) throw duplicateList(body.name);
  const now = Date.now();
  try {
    const [row] = await store
      .insert(leadLists)
      .values({ accountId, name: body.name, nameKey, favorite: body.favorite ?? false, createdAt: now, updatedAt: now })
      .returning();
    if (!row) throw new Error("inserting a lead list returned no row");
    return {
      status: true,
      message: `The list "${row.name}" was created.`,
      data: { id: row.id, list_id: row.id, name: row.name },
    };
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateList(body.name);
    throw err;
  }
}

const route = createRoute({
  method: "post",
  path: "/leads_lists",
  tags: ["Lead lists"],
  security,
  summary: "Create a lead list (answers both id and list_id; 422 for a taken name or the plan's available_list)",
  request: { body: jsonBody(CreateListBody) },
  responses: { 200: jsonContent("Created", CreatedListSchema), ...ErrorResponses },
});

const templateRoute = createRoute({
  method: "post",
  path: "/leads_lists/{id}",
  hide: true,
  tags: ["Lead lists"],
  security,
  request: { params: IdParam, body: jsonBody(CreateListBody) },
  responses: { 200: jsonContent("Created", CreatedListSchema), ...ErrorResponses },
});

export function registerCreateList(v1: ApiApp) {
  v1.openapi(route, async (c) => c.json(await createList(c, c.req.valid("json")), 200));
  v1.openapi(templateRoute, async (c) => {
    if (!isLiteralIdTemplate(c.req.valid("param").id))
      throw new ApiError(
        404,
        "unknown_route",
        "Create lists with POST /v1/leads_lists; rename one with PUT /v1/leads_lists/{id}.",
      );
    return c.json(await createList(c, c.req.valid("json")), 200);
  });
}
