import type { Hono } from "hono";
import { z } from "zod";
import { addClaim, type ClaimKind, type ClaimRecord, isClaimKind, listClaims, normaliseClaimValue, removeClaim } from "../engine/index/claims.js";
import type { AppBindings } from "../env.js";
import { ApiError } from "../http/errors.js";
import { rfc3339 } from "../http/time.js";
import { describeIssue } from "../http/validation.js";

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
  if (!isClaimKind(kind)) throw new ApiError(400, "params_invalid", "The parameter 'kind' must be email, phone or linkedin.");
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

const present = (c: ClaimRecord) => ({ kind: c.kind, value: c.value, reason: c.reason, created_at: rfc3339(c.createdAt) });

export function registerClaimRoutes(app: Hono<AppBindings>) {
  app.post("/claims", async (c) => {
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      throw new ApiError(400, "params_invalid", 'Send a JSON body like {"kind": "email", "value": "jane@example.com", "reason": "owner request"}.');
    }
    const parsed = Body.safeParse(raw);
    if (!parsed.success) throw new ApiError(400, "params_invalid", describeIssue(parsed.error, raw));
    const kind = kindOf(parsed.data.kind);
    const claim = await addClaim(c.env, kind, normalisedOrThrow(kind, parsed.data.value), parsed.data.reason || null);
    return c.json({ data: present(claim) }, 201);
  });

  app.get("/claims", async (c) => {
    const kindParam = c.req.query("kind");
    const claims = await listClaims(c.env, kindParam ? kindOf(kindParam) : undefined);
    return c.json({ data: claims.map(present), meta: { total: claims.length } });
  });

  app.delete("/claims", async (c) => {
    const kind = kindOf(c.req.query("kind"));
    const value = c.req.query("value");
    if (!value) throw new ApiError(400, "params_invalid", "The parameter 'value' is required.");
    const normalised = normalisedOrThrow(kind, value);
    if (!(await removeClaim(c.env, kind, normalised))) throw new ApiError(404, "unknown_record", `No ${kind} claim for ${normalised}.`);
    return c.json({ data: { kind, value: normalised, removed: true } });
  });
}
