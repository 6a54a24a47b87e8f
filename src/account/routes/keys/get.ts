import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../../http/openapi.js";
import { ErrorResponses } from "../../../http/openapi-shared.js";
import {
  findOwnKey,
  IdParam,
  isLiteralIdTemplate,
  KeyListSchema,
  keysDoc,
  keysRead,
  listKeys,
  renderKey,
} from "./shared.js";

const route = createRoute({
  method: "get",
  path: "/keys/{id}",
  ...keysDoc,
  middleware: keysRead,
  summary: "Get one API key",
  request: { params: IdParam },
  responses: {
    200: { description: "The key, as a one-element list", content: { "application/json": { schema: KeyListSchema } } },
    ...ErrorResponses,
  },
});

export function registerGetKey(v1: ApiApp) {
  v1.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    if (isLiteralIdTemplate(id)) return c.json(await listKeys(c), 200);
    return c.json({ data: { keys: [renderKey(await findOwnKey(c, id))] } }, 200);
  });
}
