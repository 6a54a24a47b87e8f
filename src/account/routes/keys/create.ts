import { createRoute } from "@hono/zod-openapi";
import { ApiError } from "../../../http/errors.js";
import type { ApiApp } from "../../../http/openapi.js";
import { ErrorResponses } from "../../../http/openapi-shared.js";
import { describeIssue } from "../../../http/validation.js";
import {
  CreateBody,
  createKey,
  IdParam,
  isLiteralIdTemplate,
  KeyWithSecretSchema,
  keysDoc,
  keysWrite,
} from "./shared.js";

const route = createRoute({
  method: "post",
  path: "/keys",
  ...keysDoc,
  middleware: keysWrite,
  summary: "Create an API key (the secret is returned once)",
  request: { body: { required: false, content: { "application/json": { schema: CreateBody } } } },
  responses: {
    200: {
      description: "The new key with its secret",
      content: { "application/json": { schema: KeyWithSecretSchema } },
    },
    ...ErrorResponses,
  },
});

export function registerCreateKey(v1: ApiApp) {
  v1.openapi(route, async (c) => c.json(await createKey(c, c.req.valid("json")), 200));
}

/**
 * The JavaScript client creates keys with `POST /keys/{id}` (template not filled in). Undocumented
 * on purpose. Its body is read by hand: that client sends no body, `null` or an object, with or
 * without a JSON content type, and the id is checked before the body.
 */
const templateRoute = createRoute({
  method: "post",
  path: "/keys/{id}",
  hide: true,
  ...keysDoc,
  middleware: keysWrite,
  request: { params: IdParam },
  responses: {
    200: {
      description: "The new key with its secret",
      content: { "application/json": { schema: KeyWithSecretSchema } },
    },
    ...ErrorResponses,
  },
});

export function registerCreateKeyFromTemplate(v1: ApiApp) {
  v1.openapi(templateRoute, async (c) => {
    if (!isLiteralIdTemplate(c.req.valid("param").id)) {
      throw new ApiError(
        405,
        "method_not_allowed",
        "POST is not allowed on an existing key; use PUT to reset or PATCH to rename.",
      );
    }
    const text = (await c.req.text()).trim();
    let raw: unknown = {};
    if (text && text !== "null") {
      try {
        raw = JSON.parse(text);
      } catch {
        throw new ApiError(
          400,
          "params_invalid",
          'The request body is not valid JSON; send an object such as {"name": "CI"} or no body.',
        );
      }
    }
    const parsed = CreateBody.safeParse(raw);
    if (!parsed.success) throw new ApiError(400, "params_invalid", describeIssue(parsed.error, raw));
    return c.json(await createKey(c, parsed.data), 200);
  });
}
