import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { db } from "../../../db/client.js";
import { apiKeys } from "../../../db/schema.js";
import type { ApiApp } from "../../../http/openapi.js";
import { ErrorResponses } from "../../../http/openapi-shared.js";
import { forgetMeViews } from "../../me-cache.js";
import { findOwnKey, IdParam, keysDoc, keysWrite, MutationSchema } from "./shared.js";

const RenameBody = z.object({ name: z.string().trim().min(1).max(100) });

const route = createRoute({
  method: "patch",
  path: "/keys/{id}",
  ...keysDoc,
  middleware: keysWrite,
  summary: "Rename an API key",
  request: { params: IdParam, body: { required: true, content: { "application/json": { schema: RenameBody } } } },
  responses: {
    200: { description: "Renamed", content: { "application/json": { schema: MutationSchema } } },
    ...ErrorResponses,
  },
});

export function registerRenameKey(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const key = await findOwnKey(c, c.req.valid("param").id);
    const { name } = c.req.valid("json");
    await db(c.env.DB).update(apiKeys).set({ name, updatedAt: Date.now() }).where(eq(apiKeys.id, key.id)).run();
    forgetMeViews(key.accountId);
    return c.json({ status: true, message: `The key is now named '${name}'.` }, 200);
  });
}
