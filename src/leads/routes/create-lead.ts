import { createRoute, type z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { type LeadRow, leads } from "../../db/schema-leads.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { planFor } from "../../limits/plans.js";
import { allAttributes, checkAttributeValues } from "../attributes.js";
import { emitSaveLeadLater } from "../events.js";
import { assertEmailFree, CreateLeadBody, duplicateLead, LeadSchema, leadColumns, withFinderFacts } from "../lead.js";
import { findList } from "../lists.js";
import {
  IdParam,
  isLiteralIdTemplate,
  isUniqueViolation,
  jsonBody,
  jsonContent,
  type LeadsCtx,
  MutationSchema,
  ownerOf,
} from "../shared.js";
import { renderOwnLead } from "./get-lead.js";

const CreatedLeadSchema = MutationSchema.extend({ data: LeadSchema }).openapi("CreatedLead");

async function createLead(c: LeadsCtx, body: z.infer<typeof CreateLeadBody>) {
  const accountId = ownerOf(c);
  const plan = planFor(c.get("auth").account.plan);
  const store = db(c.env.DB);
  const columns = await withFinderFacts(c.env, body.email, leadColumns(body));
  const [held, attributes] = await Promise.all([
    store.$count(leads, eq(leads.accountId, accountId)),
    body.attributes ? allAttributes(c.env, accountId) : [],
  ]);
  if (held >= plan.caps.leads) {
    throw new ApiError(
      422,
      "leads_limit_reached",
      `Your ${plan.label} plan allows ${plan.caps.leads} leads (available_leads) and this account has ${held}; delete leads before saving more.`,
    );
  }
  await assertEmailFree(c.env, accountId, body.email);
  if (columns.listId)
    await findList(c.env, accountId, columns.listId).catch(() => {
      throw new ApiError(
        400,
        "params_invalid",
        `The parameter 'list_id' is invalid: no lead list with id ${columns.listId} on this account.`,
      );
    });
  const values = body.attributes ? checkAttributeValues(attributes, body.attributes) : {};
  const stored = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null));
  const now = Date.now();
  // leadColumns derives the domain from the email, which creating a lead requires.
  const domain = columns.domain;
  if (domain === undefined) throw new Error("a new lead's columns carry no domain");
  let row: LeadRow | undefined;
  try {
    [row] = await store
      .insert(leads)
      .values({
        ...columns,
        accountId,
        email: body.email,
        emailKey: body.email,
        domain,
        attributes: JSON.stringify(stored),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateLead(body.email);
    throw err;
  }
  if (!row) throw new Error("inserting a lead returned no row");
  emitSaveLeadLater(c.env, (p) => c.executionCtx.waitUntil(p), row);
  return { status: true, message: `The lead ${body.email} was saved.`, data: await renderOwnLead(c, row.id) };
}

const route = createRoute({
  method: "post",
  path: "/leads",
  tags: ["Leads"],
  security,
  summary: "Save a lead (422 when the email already exists or the plan's available_leads is reached); emits save_lead",
  request: { body: jsonBody(CreateLeadBody) },
  responses: { 200: jsonContent("Saved", CreatedLeadSchema), ...ErrorResponses },
});

/** The JavaScript client's `POST /leads/%7Bid%7D`: create when the id is the literal template. */
const templateRoute = createRoute({
  method: "post",
  path: "/leads/{id}",
  hide: true,
  tags: ["Leads"],
  security,
  request: { params: IdParam, body: jsonBody(CreateLeadBody) },
  responses: { 200: jsonContent("Saved", CreatedLeadSchema), ...ErrorResponses },
});

export function registerCreateLead(v1: ApiApp) {
  v1.openapi(route, async (c) => c.json(await createLead(c, c.req.valid("json")), 200));
  v1.openapi(templateRoute, async (c) => {
    if (!isLiteralIdTemplate(c.req.valid("param").id))
      throw new ApiError(404, "unknown_route", "Create leads with POST /v1/leads; update one with PUT /v1/leads/{id}.");
    return c.json(await createLead(c, c.req.valid("json")), 200);
  });
}
