import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppBindings } from "../env.js";
import { ApiError } from "../http/errors.js";
import { queryIntOr } from "../http/validation.js";

export type LeadsCtx = Context<AppBindings>;

/** Leads, lists, attributes, webhooks and flags belong to the billed account (the workspace owner for members). */
export const ownerOf = (c: LeadsCtx) => c.get("auth").account.id;

/** Clients of this API send the literal template `{id}` (percent-encoded or not) when they mean "no id" (contract 2.3). */
export const isLiteralIdTemplate = (id: string) => id === "{id}" || id.toLowerCase() === "%7bid%7d";

export const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" }, example: "1" }),
});

/** A numeric record id, or 404 unknown_record naming what was looked for. */
export function recordId(id: string, what: string): number {
  if (!/^\d{1,15}$/.test(id))
    throw new ApiError(404, "unknown_record", `No ${what} with id ${id.slice(0, 40)} on this account.`);
  return Number(id);
}

export const notFound = (what: string, id: number | string) =>
  new ApiError(404, "unknown_record", `No ${what} with id ${id} on this account.`);

export const MutationSchema = z.object({ status: z.boolean(), message: z.string() }).openapi("Mutation");

/** Classic pagination meta (contract 2.2). */
export const ClassicMetaSchema = z
  .object({
    total: z.number().int(),
    pageSize: z.number().int(),
    current: z.number().int(),
    total_pages: z.number().int(),
  })
  .openapi("ClassicMeta");

export function classicMeta(total: number, page: number, limit: number): z.infer<typeof ClassicMetaSchema> {
  return { total, pageSize: limit, current: page, total_pages: Math.ceil(total / limit) };
}

export const pageQuery = (defaultLimit: number, maxLimit = 100) => ({
  page: queryIntOr(1, { min: 1, max: 100_000 }),
  limit: queryIntOr(defaultLimit, { min: 1, max: maxLimit }),
});

/** A JSON body that must be present (clients send `{}` or nothing on updates; both get a clear 400). */
export const jsonBody = <T extends z.ZodType>(schema: T) =>
  ({ required: true, content: { "application/json": { schema } } }) as const;

export const jsonContent = <T extends z.ZodType>(description: string, schema: T) =>
  ({ description, content: { "application/json": { schema } } }) as const;

/** Lowercased, trimmed text that uniqueness is checked on. */
export const uniqueKey = (text: string) => text.trim().toLowerCase();

/** An update body must change something. */
export const nonEmpty = (body: object) => Object.values(body).some((v) => v !== undefined);
export const EMPTY_UPDATE_MESSAGE = "The request body is empty: send at least one field to change.";

/** SQLite unique-constraint failures (a race between the duplicate check and the insert). */
export const isUniqueViolation = (err: unknown) =>
  /UNIQUE constraint failed/i.test(String((err as { message?: string })?.message ?? err));
