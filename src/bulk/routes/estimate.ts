import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { limiterFor } from "../../limits/admission.js";
import { jobStub, onJob } from "../jobs.js";
import { assertOwnJob, auth, JobErrors, JobParams, security, TAG, typeOf } from "./shared.js";

const Credits = z.object({
  search: z.number().int(),
  verify: z.number().int(),
  phone: z.number().int(),
  total: z.number().int(),
});
const EstimateSchema = z
  .object({
    data: z.object({
      bulk_id: z.number().int(),
      status: z.string(),
      basis: z.enum(["exact", "upper_bound"]),
      billed: z.boolean(),
      rows: z.number().int().openapi({ description: "Rows still to run (exact basis: rows run)" }),
      credits: Credits,
      remaining: z.object({ search: z.number().int(), verify: z.number().int(), phone: z.number().int() }).optional(),
      sufficient: z.boolean().optional(),
      note: z.string(),
    }),
  })
  .openapi("BulkEstimate");

const route = createRoute({
  method: "get",
  path: "/bulk/{type}/{id}/estimate",
  tags: [TAG],
  security,
  summary:
    "Credits a job will use (upper bound: rows found are billed, others refunded) or used (exact, once it has run)",
  request: { params: JobParams },
  responses: {
    200: { description: "Estimate", content: { "application/json": { schema: EstimateSchema } } },
    ...JobErrors,
  },
});

export function registerEstimate(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { type: typeName, id } = c.req.valid("param");
    await assertOwnJob(c, typeName, id);
    const type = typeOf(typeName);
    const now = Date.now();
    const job = jobStub(c.env, id);
    const view = await onJob(job.read(now));
    if (view.status === "running")
      throw new ApiError(
        409,
        "invalid_state",
        "This job is running; its estimate changes with every row. Read its progress instead.",
      );
    const left = await job.remainingRows();
    const credits = { search: 0, verify: 0, phone: 0, total: 0 };
    const key = (b: string) => (b === "verification" ? "verify" : b) as "search" | "verify" | "phone";
    if (view.status === "completed") {
      const spent = left.spent;
      Object.assign(credits, {
        search: spent.search,
        verify: spent.verification,
        phone: spent.phone,
        total: spent.search + spent.verification + spent.phone,
      });
      return c.json(
        {
          data: {
            bulk_id: id,
            status: view.status,
            basis: "exact" as const,
            billed: view.billed,
            rows: left.processed,
            credits,
            note: "Credits this job used.",
          },
        },
        200,
      );
    }
    const cost = type.capability.cost;
    if (cost) {
      credits[key(cost.balance)] = left.rows * cost.amount;
      credits.total = left.rows * cost.amount;
    }
    const balances = await limiterFor(c.env, auth(c).accountId).balances(auth(c).plan);
    const remaining = {
      search: balances.search.available,
      verify: balances.verification.available,
      phone: balances.phone.available,
    };
    const sufficient =
      remaining.search >= credits.search && remaining.verify >= credits.verify && remaining.phone >= credits.phone;
    return c.json(
      {
        data: {
          bulk_id: id,
          status: view.status,
          basis: "upper_bound" as const,
          billed: view.billed,
          rows: left.rows,
          credits,
          remaining,
          sufficient,
          note: "Upper bound: each row is billed only when something is found; options such as find_phones add phone credits per number found.",
        },
      },
      200,
    );
  });
}
