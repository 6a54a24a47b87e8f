import { createRoute } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { type LeadRow, leads } from "../../db/schema-leads.js";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { allAttributes, checkAttributeValues } from "../attributes.js";
import { emitSaveLeadLater } from "../events.js";
import {
  assertEmailFree,
  duplicateLead,
  findLead,
  LeadSchema,
  leadColumns,
  UpdateLeadBody,
  withFinderFacts,
} from "../lead.js";
import { findList } from "../lists.js";
import {
  EMPTY_UPDATE_MESSAGE,
  IdParam,
  isUniqueViolation,
  jsonBody,
  jsonContent,
  MutationSchema,
  nonEmpty,
  notFound,
  ownerOf,
  recordId,
} from "../shared.js";
import { renderOwnLead } from "./get-lead.js";

const UpdatedLeadSchema = MutationSchema.extend({ data: LeadSchema }).openapi("UpdatedLead");

const route = createRoute({
  method: "put",
  path: "/leads/{id}",
  tags: ["Leads"],
  security,
  summary: "Update a lead (only the fields sent change); emits save_lead",
  request: { params: IdParam, body: jsonBody(UpdateLeadBody) },
  responses: { 200: jsonContent("Updated", UpdatedLeadSchema), ...ErrorResponses },
});

export function registerUpdateLead(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const body = c.req.valid("json");
    if (!nonEmpty(body)) throw new ApiError(400, "params_invalid", EMPTY_UPDATE_MESSAGE);
    const accountId = ownerOf(c);
    const lead = await findLead(c.env, accountId, recordId(c.req.valid("param").id, "lead"));
    const sent = leadColumns(body);
    const columns = await withFinderFacts(c.env, sent.email ?? lead.emailKey, sent, lead);
    if (columns.email && columns.email !== lead.emailKey)
      await assertEmailFree(c.env, accountId, columns.email, lead.id);
    if (columns.listId) {
      await findList(c.env, accountId, columns.listId).catch(() => {
        throw new ApiError(
          400,
          "params_invalid",
          `The parameter 'list_id' is invalid: no lead list with id ${columns.listId} on this account.`,
        );
      });
    }
    let attributes: string | undefined;
    if (body.attributes) {
      const values = checkAttributeValues(await allAttributes(c.env, accountId), body.attributes);
      const merged: Record<string, unknown> = { ...(JSON.parse(lead.attributes) as Record<string, unknown>) };
      for (const [k, v] of Object.entries(values)) {
        if (v === null) delete merged[k];
        else merged[k] = v;
      }
      attributes = JSON.stringify(merged);
    }
    let row: LeadRow | undefined;
    try {
      [row] = await db(c.env.DB)
        .update(leads)
        .set({ ...columns, ...(attributes !== undefined ? { attributes } : {}), updatedAt: Date.now() })
        .where(and(eq(leads.id, lead.id), eq(leads.accountId, accountId)))
        .returning();
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateLead(columns.email ?? lead.email);
      throw err;
    }
    // No row: the lead was deleted between the read above and this update.
    if (!row) throw notFound("lead", lead.id);
    emitSaveLeadLater(c.env, (p) => c.executionCtx.waitUntil(p), row);
    return c.json(
      { status: true, message: `The lead ${row.email} was updated.`, data: await renderOwnLead(c, row.id) },
      200,
    );
  });
}
