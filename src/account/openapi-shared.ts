import { z } from "@hono/zod-openapi";

export const ErrorSchema = z
  .object({
    errors: z.object({
      type: z.string().openapi({ example: "params_invalid" }),
      message: z.string(),
      code: z.number().int().openapi({ example: 400 }),
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
