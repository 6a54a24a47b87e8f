import { createRoute, z } from "@hono/zod-openapi";
import { canonicalPath } from "../../capabilities/core/registry.js";
import type { ApiApp } from "../../http/openapi.js";
import {
  BULK_TYPES,
  CREATES_PER_TYPE_PER_DAY,
  DOWNLOAD_FILES,
  DOWNLOADS_PER_JOB_PER_DAY,
  fieldOf,
  MAX_ROWS,
} from "../types.js";
import { security, TAG } from "./shared.js";

export const TypeSchema = z
  .object({
    type: z.string(),
    path: z.string(),
    label: z.string(),
    description: z.string(),
    app_path: z.string(),
    storage: z.string(),
    allows_upload: z.boolean(),
    file_required: z.boolean(),
    primary_field: z.string(),
    options: z.array(
      z.object({ name: z.string(), type: z.string(), former_name: z.string().nullable(), description: z.string() }),
    ),
    max_rows: z.number().int(),
    fields: z.array(
      z.object({ field: z.string(), param: z.string(), label: z.string(), header_synonyms: z.array(z.string()) }),
    ),
    credit_cost: z.object({ balance: z.string(), amount: z.number().int() }).nullable(),
    creates_per_day: z.number().int(),
    downloads_per_job_per_day: z.number().int(),
    auto_launch: z.boolean(),
    downloads: z.array(z.string()),
    distributions: z.array(z.string()),
  })
  .openapi("BulkType");
export type BulkTypeData = z.infer<typeof TypeSchema>;

const route = createRoute({
  method: "get",
  path: "/bulk/types",
  tags: [TAG],
  security,
  summary: "Bulk types, derived from the capability declarations (input fields with header synonyms, options, limits)",
  responses: {
    200: { description: "Types", content: { "application/json": { schema: z.object({ data: z.array(TypeSchema) }) } } },
  },
});

export function registerListTypes(app: ApiApp) {
  app.openapi(route, (c) =>
    c.json(
      {
        data: BULK_TYPES.map(({ type, capability, decl }) => ({
          type,
          path: `/v1/bulk/${type}`,
          label: decl.label,
          description: decl.description,
          app_path: canonicalPath(capability),
          storage: "r2",
          allows_upload: true,
          file_required: false,
          primary_field: fieldOf(decl, decl.primaryParam).field,
          options: decl.options.map((o) => ({
            name: o.name,
            type: o.kind,
            former_name: o.legacyName ?? null,
            description: o.description,
          })),
          max_rows: MAX_ROWS,
          fields: decl.fields.map((f) => ({
            field: f.field,
            param: f.param,
            label: f.label,
            header_synonyms: f.headerSynonyms,
          })),
          credit_cost: capability.cost ? { balance: capability.cost.balance, amount: capability.cost.amount } : null,
          creates_per_day: CREATES_PER_TYPE_PER_DAY,
          downloads_per_job_per_day: DOWNLOADS_PER_JOB_PER_DAY,
          auto_launch: false,
          downloads: [...DOWNLOAD_FILES],
          distributions: ["rows"],
        })),
      },
      200,
    ),
  );
}
