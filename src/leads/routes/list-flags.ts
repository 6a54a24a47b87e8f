import { createRoute, z } from "@hono/zod-openapi";
import { desc, eq } from "drizzle-orm";
import { db } from "../../db/client.js";
import { flags } from "../../db/schema-leads.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorResponses, security } from "../../http/openapi-shared.js";
import { FlagSchema, flagLimit, renderFlag } from "../flags.js";
import { ClassicMetaSchema, classicMeta, jsonContent, ownerOf, pageQuery } from "../shared.js";

const route = createRoute({
  method: "get",
  path: "/flag",
  middleware: flagLimit,
  tags: ["Flags"],
  security,
  summary: "The account's reports of incorrect results, newest first (10 requests per minute per IP)",
  request: { query: z.object(pageQuery(10)) },
  responses: {
    200: jsonContent("Flags", z.object({ data: z.array(FlagSchema), meta: ClassicMetaSchema })),
    ...ErrorResponses,
  },
});

export function registerListFlags(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const { page, limit } = c.req.valid("query");
    const accountId = ownerOf(c);
    const store = db(c.env.DB);
    const where = eq(flags.accountId, accountId);
    const [rows, total] = await Promise.all([
      store
        .select()
        .from(flags)
        .where(where)
        .orderBy(desc(flags.id))
        .limit(limit)
        .offset((page - 1) * limit),
      store.$count(flags, where),
    ]);
    return c.json({ data: rows.map(renderFlag), meta: classicMeta(total, page, limit) }, 200);
  });
}
