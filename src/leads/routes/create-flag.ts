import { createRoute } from "@hono/zod-openapi";
import { db } from "../../db/client.js";
import { flags } from "../../db/schema-leads.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { CreateFlagBody, FlagSchema, flagLimit, renderFlag } from "../flags.js";
import { jsonBody, jsonContent, MutationSchema, ownerOf } from "../shared.js";

const route = createRoute({
  method: "post",
  path: "/flag",
  middleware: flagLimit,
  tags: ["Flags"],
  security,
  summary: "Report an incorrect result (10 requests per minute per IP)",
  request: { body: jsonBody(CreateFlagBody) },
  responses: { 200: jsonContent("Recorded", MutationSchema.extend({ data: FlagSchema })), ...ErrorResponses },
});

export function registerCreateFlag(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const [row] = await db(c.env.DB)
      .insert(flags)
      .values({
        accountId: ownerOf(c),
        flagType: body.flag_type,
        value: body.value,
        reason: body.reason,
        comment: body.comment ?? null,
        ipAddress: c.req.header("cf-connecting-ip") ?? null,
        createdAt: Date.now(),
      })
      .returning();
    if (!row) throw new Error("inserting a flag returned no row");
    return c.json(
      { status: true, message: "Thank you: the report was recorded and will be reviewed.", data: renderFlag(row) },
      200,
    );
  });
}
