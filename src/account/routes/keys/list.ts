import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../../http/openapi.js";
import { ErrorResponses } from "../../../http/openapi-shared.js";
import { KeyListSchema, keysDoc, keysRead, listKeys } from "./shared.js";

const route = createRoute({
  method: "get",
  path: "/keys",
  ...keysDoc,
  middleware: keysRead,
  summary: "List the API keys of this account",
  responses: {
    200: { description: "Keys", content: { "application/json": { schema: KeyListSchema } } },
    ...ErrorResponses,
  },
});

export function registerListKeys(v1: ApiApp) {
  v1.openapi(route, async (c) => c.json(await listKeys(c), 200));
}
