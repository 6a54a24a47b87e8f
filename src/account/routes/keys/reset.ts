import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../../http/openapi.js";
import { ErrorResponses } from "../../../http/openapi-shared.js";
import { findOwnKey, IdParam, keysDoc, keysWrite, MutationWithKeySchema, resetKey } from "./shared.js";

/** `PUT /keys/{id}` and its older spelling `PUT /keys/{id}/reset`. */
const routeAt = <P extends string>(path: P) =>
  createRoute({
    method: "put",
    path,
    ...keysDoc,
    middleware: keysWrite,
    summary: "Give an API key a new secret (returned once)",
    request: { params: IdParam },
    responses: {
      200: { description: "New secret", content: { "application/json": { schema: MutationWithKeySchema } } },
      ...ErrorResponses,
    },
  });

export function registerResetKey(v1: ApiApp) {
  for (const route of [routeAt("/keys/{id}"), routeAt("/keys/{id}/reset")]) {
    v1.openapi(route, async (c) => c.json(await resetKey(c, await findOwnKey(c, c.req.valid("param").id)), 200));
  }
}
