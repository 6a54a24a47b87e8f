import { createRoute, z } from "@hono/zod-openapi";
import type { ApiKey } from "../../../db/schema.js";
import { ApiError } from "../../../http/errors.js";
import type { Ctx } from "../../../http/openapi.js";
import { ErrorResponses } from "../../../http/openapi-shared.js";
import { findOwnKey, keysDoc, keysWrite, MutationSchema, MutationWithKeySchema } from "./shared.js";

/**
 * `PUT /keys` and `DELETE /keys`, the id-less forms the spec lists beside `/keys/{id}`: they act on
 * the key named by `id` in the body, or, without one (clients send `{}`), on the key that
 * authenticated this very request. PUT gives it a new secret (returned once), DELETE revokes it.
 */

const KeyTarget = z
  .object({
    id: z
      .union([z.number().int().min(1), z.string().trim().min(1).max(128)])
      .optional()
      .openapi({ description: "Key id or public key; default: the key sending this request" }),
  })
  .openapi("KeyTarget");

const keyTargetBody = { required: false, content: { "application/json": { schema: KeyTarget } } } as const;

export const resetCurrentRoute = createRoute({
  method: "put",
  path: "/keys",
  ...keysDoc,
  middleware: keysWrite,
  summary: "Give a key a new secret (returned once); without an id, the key sending this request",
  request: { body: keyTargetBody },
  responses: {
    200: { description: "New secret", content: { "application/json": { schema: MutationWithKeySchema } } },
    ...ErrorResponses,
  },
});

export const revokeCurrentRoute = createRoute({
  method: "delete",
  path: "/keys",
  ...keysDoc,
  middleware: keysWrite,
  summary: "Revoke a key; without an id, the key sending this request (it stops working at once)",
  request: { body: keyTargetBody },
  responses: {
    200: { description: "Revoked", content: { "application/json": { schema: MutationSchema } } },
    ...ErrorResponses,
  },
});

/** The key named in the body, or the one that authenticated this request. */
export async function targetKey(c: Ctx, id: number | string | undefined): Promise<ApiKey> {
  const target = id ?? c.get("auth").keyId;
  if (target === null) {
    throw new ApiError(
      400,
      "params_invalid",
      "The parameter 'id' is required: this request was not made with an API key.",
    );
  }
  return findOwnKey(c, String(target));
}
