import { createRoute, z } from "@hono/zod-openapi";
import {
  addClaim,
  type ClaimKind,
  type ClaimRecord,
  isClaimKind,
  listClaims,
  normaliseClaimValue,
  removeClaim,
} from "../../engine/index/claims.js";
import { ApiError } from "../../http/errors.js";
import { jsonBodyOr400 } from "../../http/json-body.js";
import type { ApiApp } from "../../http/openapi.js";
import { rfc3339 } from "../../platform/time.js";

/**
 * Removal requests, recorded by the operator: POST/GET/DELETE /operator/claims. Once recorded, the
 * value is answered 451 by the lookups that would serve it and omitted from domain search.
 */

// The neutral name of the profile kind is accepted too; it is stored as "linkedin" (the error type's name).
const KIND_ALIASES: Record<string, ClaimKind> = { professional_network: "linkedin" };

const Body = z.object({
  kind: z.string(),
  value: z.string().trim().min(1).max(512),
  reason: z.string().trim().max(1000).optional(),
});

function kindOf(raw: string | undefined): ClaimKind {
  const kind = raw ? (KIND_ALIASES[raw] ?? raw) : undefined;
  if (!isClaimKind(kind))
    throw new ApiError(400, "params_invalid", "The parameter 'kind' must be email, phone or linkedin.");
  return kind;
}

const WHAT: Record<ClaimKind, string> = {
  email: "an email address",
  phone: "a phone number in international form (+33 6 12 34 56 78)",
  linkedin: "a professional-network profile URL (https://www.linkedin.com/in/<handle>) or handle",
};

function normalisedOrThrow(kind: ClaimKind, value: string): string {
  const normalised = normaliseClaimValue(kind, value);
  if (!normalised) throw new ApiError(422, "params_invalid", `The value is not ${WHAT[kind]}.`);
  return normalised;
}

const present = (c: ClaimRecord) => ({
  kind: c.kind,
  value: c.value,
  reason: c.reason,
  created_at: rfc3339(c.createdAt),
});

// `kind` and `value` stay plain text here: their messages name the accepted kinds (400) and what
// a value of that kind looks like (422), which a schema's generic message would not.
const ClaimQuery = z.object({ kind: z.string().optional(), value: z.string().optional() });

const addRoute = createRoute({
  method: "post",
  path: "/claims",
  middleware: jsonBodyOr400(
    'Send a JSON body like {"kind": "email", "value": "jane@example.com", "reason": "owner request"}.',
  ),
  request: { body: { required: true, content: { "application/json": { schema: Body } } } },
  responses: { 201: { description: "Recorded" } },
});

const listRoute = createRoute({
  method: "get",
  path: "/claims",
  request: { query: ClaimQuery.pick({ kind: true }) },
  responses: { 200: { description: "Removal requests" } },
});

const removeRoute = createRoute({
  method: "delete",
  path: "/claims",
  request: { query: ClaimQuery },
  responses: { 200: { description: "Withdrawn" } },
});

export function registerClaimRoutes(app: ApiApp) {
  app.openapi(addRoute, async (c) => {
    const body = c.req.valid("json");
    const kind = kindOf(body.kind);
    const claim = await addClaim(c.env, kind, normalisedOrThrow(kind, body.value), body.reason || null);
    return c.json({ data: present(claim) }, 201);
  });

  app.openapi(listRoute, async (c) => {
    const { kind } = c.req.valid("query");
    const claims = await listClaims(c.env, kind ? kindOf(kind) : undefined);
    return c.json({ data: claims.map(present), meta: { total: claims.length } }, 200);
  });

  app.openapi(removeRoute, async (c) => {
    const q = c.req.valid("query");
    const kind = kindOf(q.kind);
    if (!q.value) throw new ApiError(400, "params_invalid", "The parameter 'value' is required.");
    const normalised = normalisedOrThrow(kind, q.value);
    if (!(await removeClaim(c.env, kind, normalised)))
      throw new ApiError(404, "unknown_record", `No ${kind} claim for ${normalised}.`);
    return c.json({ data: { kind, value: normalised, removed: true } }, 200);
  });
}
