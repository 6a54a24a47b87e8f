import { z } from "@hono/zod-openapi";
import { ERROR_CODES } from "./errors.js";

export const ErrorSchema = z
  .object({
    errors: z.object({
      type: z.enum(ERROR_CODES).openapi({
        example: "params_invalid",
        description: "One of a closed set; each type has a fixed status (src/http/errors.ts)",
      }),
      message: z.string(),
      code: z.number().int().openapi({ example: 400 }),
      request_id: z
        .string()
        .optional()
        .openapi({ description: "The response's X-Request-Id; quote it when reporting a problem" }),
    }),
  })
  .openapi("Error");

const err = (description: string) => ({ description, content: { "application/json": { schema: ErrorSchema } } });

export const ErrorResponses = {
  400: err("Invalid parameters or missing, malformed or expired credentials"),
  401: err("Credentials match no usable account"),
  404: err("Unknown record"),
  422: err("Account cap reached or request rejected"),
  429: err("Rate limit reached"),
} as const;

export const security: Record<string, string[]>[] = [{ ServiceKey: [], ServiceSecret: [] }, { OAuth2: [] }];
