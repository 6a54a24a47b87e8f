import { z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { bulkJobs } from "../../db/schema-bulk.js";
import { ApiError } from "../../http/errors.js";
import type { Ctx } from "../../http/openapi.js";
import { ErrorResponses, ErrorSchema, security } from "../../http/openapi-shared.js";
import { BULK_TYPE_NAMES, type BulkType, bulkType } from "../types.js";

export { type BulkJobData, JobSchema } from "./job-schema.js";
export { security };
export const TAG = "Bulk";

export const TypeParam = z.object({
  type: z
    .enum(BULK_TYPE_NAMES, { message: `expected one of ${BULK_TYPE_NAMES.join(", ")}` })
    .openapi({ param: { name: "type", in: "path" }, example: "finder" }),
});
export const JobParams = TypeParam.extend({
  id: z.coerce
    .number({ message: "expected a job id" })
    .int({ message: "expected a job id" })
    .min(1, { message: "expected a job id" })
    .openapi({ param: { name: "id", in: "path" }, example: 1 }),
});

export const ActionSchema = z
  .object({ data: z.object({ status: z.string(), message: z.string(), code: z.number().int() }) })
  .openapi("BulkSuccessResponse");

const err = (description: string) => ({ description, content: { "application/json": { schema: ErrorSchema } } });
export const JobErrors = {
  ...ErrorResponses,
  404: err("No such job for this account (unknown_record)"),
  409: err("The job's status does not allow this action, or the job expired (invalid_state)"),
} as const;

export function auth(c: Ctx) {
  const a = c.get("auth");
  return { accountId: a.account.id, plan: a.account.plan, actorId: a.actor.id };
}

export function typeOf(name: string): BulkType {
  const type = bulkType(name);
  // The routes accept only the declared type names (BULK_TYPE_NAMES), and stored jobs carry one.
  if (!type) throw new Error(`Unknown bulk type '${name}'.`);
  return type;
}

/** 404 unless the job exists, belongs to the account and is of the path's type. */
export async function assertOwnJob(c: Ctx, type: string, id: number) {
  const [row] = await db(c.env.DB)
    .select({ id: bulkJobs.id })
    .from(bulkJobs)
    .where(and(eq(bulkJobs.id, id), eq(bulkJobs.accountId, c.get("auth").account.id), eq(bulkJobs.type, type)))
    .limit(1);
  if (!row) throw new ApiError(404, "unknown_record", `No ${type} bulk job with id ${id}.`);
}

export const action = (status: string, message: string) => ({ data: { status, message, code: 200 } });
