import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { db } from "../../db/client.js";
import { type AgentEnrollment, agentEnrollments } from "../../db/schema-agent.js";
import type { AppBindings } from "../../env.js";
import { ApiError } from "../../http/errors.js";
import { jsonBodyOr400 } from "../../http/json-body.js";
import type { ApiApp } from "../../http/openapi.js";
import { limitBody } from "../../http/request-limits.js";
import { spendAttempt } from "../../platform/throttle.js";
import { rfc3339 } from "../../platform/time.js";

/**
 * Free, optional agent identity. It unlocks nothing: the paid routes never look at it. The id is
 * random (not guessable) because anyone holding it can read the record back.
 */
const EnrollmentRequest = z
  .object({
    name: z.string().trim().min(1).max(120),
    contact: z
      .string()
      .trim()
      .max(320)
      .refine(
        (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) || /^https:\/\/\S+$/.test(v),
        "expected an email address or an https URL",
      ),
    public_key: z.string().trim().min(16).max(4096).optional(),
    did: z
      .string()
      .trim()
      .max(512)
      .regex(/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/, "expected a DID (did:method:identifier)")
      .optional(),
  })
  .refine((v) => v.public_key || v.did, { message: "a public_key or a did is required", path: ["public_key"] });

const EnrollmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  contact: z.string(),
  public_key: z.string().nullable(),
  did: z.string().nullable(),
  created_at: z.string().nullable(),
  grants: z
    .array(z.string())
    .openapi({ description: "Always empty: enrollment is an introduction, not an entitlement" }),
});

const ErrorSchema = z.object({ errors: z.object({ type: z.string(), message: z.string(), code: z.number().int() }) });
const json = <S extends z.ZodType>(description: string, schema: S) => ({
  description,
  content: { "application/json": { schema } },
});

/** Enrollment is free and unauthenticated: bounded per client address and in size. */
export const ENROLLMENTS_PER_HOUR_PER_IP = 10;
export const MAX_ENROLLMENT_BODY_BYTES = 16 * 1024;

const perAddressLimit: MiddlewareHandler<AppBindings> = async (c, next) => {
  const ip = c.req.header("cf-connecting-ip") ?? "unknown";
  const wait = await spendAttempt(c.env, [
    { subject: `ip:${ip}`, window: "agent-enrollments", limit: ENROLLMENTS_PER_HOUR_PER_IP, windowMs: 3_600_000 },
  ]);
  if (wait !== null) {
    throw new ApiError(
      429,
      "rate_limit",
      `Rate limit reached: ${ENROLLMENTS_PER_HOUR_PER_IP} enrollments per hour per address. Retry after ${wait} seconds.`,
      {
        "Retry-After": String(wait),
      },
    );
  }
  await next();
};

/** Refuses more than the cap from Content-Length up front, or while the body streams. */
const cappedBody = limitBody(
  MAX_ENROLLMENT_BODY_BYTES,
  `The request body is over ${MAX_ENROLLMENT_BODY_BYTES} bytes; an enrollment is a few hundred.`,
);

const enrollRoute = createRoute({
  method: "post",
  path: "/agent-enrollments",
  // In this order: count the attempt, refuse an oversized body, then parse and validate it.
  middleware: [perAddressLimit, cappedBody, jsonBodyOr400("The body must be a JSON object.")],
  request: { body: { required: true, content: { "application/json": { schema: EnrollmentRequest } } } },
  responses: { 201: json("Enrolled", EnrollmentSchema), 400: json("Invalid enrollment", ErrorSchema) },
});

const readRoute = createRoute({
  method: "get",
  path: "/agent-enrollments/{id}",
  request: { params: z.object({ id: z.string() }) },
  responses: { 200: json("The enrollment", EnrollmentSchema), 404: json("No such enrollment", ErrorSchema) },
});

export function registerEnrollmentRoutes(app: ApiApp) {
  app.openapi(enrollRoute, async (c) => {
    const body = c.req.valid("json");
    const id = `agt_${crypto.randomUUID().replaceAll("-", "")}`;
    const [row] = await db(c.env.DB)
      .insert(agentEnrollments)
      .values({
        id,
        name: body.name,
        contact: body.contact,
        publicKey: body.public_key ?? null,
        did: body.did ?? null,
        createdAt: Date.now(),
      })
      .returning();
    if (!row) throw new Error("inserting an agent enrollment returned no row");
    return c.json(present(row), 201, { location: `/agent-enrollments/${id}` });
  });

  app.openapi(readRoute, async (c) => {
    const { id } = c.req.valid("param");
    const [row] = /^agt_[0-9a-f]{32}$/.test(id)
      ? await db(c.env.DB).select().from(agentEnrollments).where(eq(agentEnrollments.id, id)).limit(1)
      : [];
    if (!row) throw new ApiError(404, "unknown_record", "No agent enrollment has this id.");
    return c.json(present(row), 200);
  });
}

function present(row: AgentEnrollment): z.infer<typeof EnrollmentSchema> {
  return {
    id: row.id,
    name: row.name,
    contact: row.contact,
    public_key: row.publicKey,
    did: row.did,
    created_at: rfc3339(row.createdAt),
    // Enrollment is an introduction, not an entitlement.
    grants: [],
  };
}
