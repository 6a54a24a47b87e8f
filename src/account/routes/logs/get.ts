import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { db } from "../../../db/client.js";
import { requestLogs } from "../../../db/schema.js";
import { ApiError } from "../../../http/errors.js";
import type { ApiApp } from "../../../http/openapi.js";
import { ErrorResponses } from "../../../http/openapi-shared.js";
import { retainedLogs } from "../../log-retention.js";
import { LogEntry, logsDoc, renderLog } from "./shared.js";

const route = createRoute({
  method: "get",
  path: "/logs/{id}",
  ...logsDoc,
  summary: "One log entry",
  request: {
    params: z.object({
      id: z.coerce
        .number()
        .int()
        .min(1)
        .openapi({ param: { name: "id", in: "path" } }),
    }),
  },
  responses: {
    200: { description: "Log entry", content: { "application/json": { schema: z.object({ data: LogEntry }) } } },
    ...ErrorResponses,
  },
});

export function registerGetLog(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const [row] = await db(c.env.DB)
      .select()
      .from(requestLogs)
      .where(and(eq(requestLogs.id, id), await retainedLogs(c.env, c.get("auth").account.id, Date.now())))
      .limit(1);
    if (!row) throw new ApiError(404, "unknown_record", `No log entry with id ${id} on this account.`);
    return c.json({ data: renderLog(row) }, 200);
  });
}
