import { z } from "@hono/zod-openapi";
import type { RequestLog } from "../../../db/schema.js";
import { ApiError } from "../../../http/errors.js";
import { security } from "../../../http/openapi-shared.js";
import { parseInstant, rfc3339 } from "../../../platform/time.js";
import { logTypeOf } from "../../log-retention.js";

/** What every logs route shares in the OpenAPI document. */
export const logsDoc = { tags: ["Account"], security };

export const LogEntry = z
  .object({
    id: z.number().int(),
    type: z.string().openapi({ description: "Endpoint group, e.g. 'Email Finder', 'Keys', 'Account'" }),
    endpoint: z.string(),
    uri: z.string(),
    http_method: z.string(),
    status_code: z.number().int(),
    duration_ms: z.number().int(),
    api_key_id: z.number().int().nullable(),
    user_id: z.number().int().openapi({
      description: "The account that made the request: the owner's id, or a team member's (GET /v1/team)",
    }),
    ip_address: z.string().nullable(),
    user_agent: z.string().nullable(),
    country: z.string().nullable(),
    source: z.enum(["API", "Website", "Agent", "Bulk"]).openapi({
      description:
        "API: a /v1 call; Website: made from the dashboard (/app); Agent: the paid agent surface; Bulk: a row of a bulk job",
    }),
    cost: z.boolean(),
    created_at: z.string(),
  })
  .openapi("LogEntry");
export type LogEntry = z.infer<typeof LogEntry>;

const SOURCE_LABELS = { api: "API", website: "Website", agent: "Agent", bulk: "Bulk" } as const;

export function renderLog(l: RequestLog): LogEntry {
  return {
    id: l.id,
    type: l.type ?? logTypeOf(l.endpoint),
    endpoint: l.endpoint,
    uri: l.uri,
    http_method: l.httpMethod,
    status_code: l.statusCode,
    duration_ms: l.durationMs,
    api_key_id: l.apiKeyId,
    user_id: l.actorAccountId,
    ip_address: l.ipAddress,
    user_agent: l.userAgent,
    country: l.country,
    source: SOURCE_LABELS[l.source],
    cost: l.cost,
    created_at: rfc3339(l.createdAt),
  };
}

/** A `start`/`end` filter as epoch milliseconds; a bare date as `end` means the end of that day. */
export function instant(name: string, text: string | undefined, endOfDay = false): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseInstant(text);
  if (ms === null)
    throw new ApiError(400, "params_invalid", `The parameter '${name}' is invalid: expected YYYY-MM-DD or RFC 3339.`);
  return endOfDay && /^\d{4}-\d{2}-\d{2}$/.test(text) ? ms + 86_399_999 : ms;
}
