import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { db } from "../db/client.js";
import { type AgentEnrollment, agentEnrollments } from "../db/schema-agent.js";
import type { AppBindings } from "../env.js";
import { ApiError } from "../http/errors.js";
import { rfc3339 } from "../http/time.js";
import { describeIssue } from "../http/validation.js";

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
      .refine((v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) || /^https:\/\/\S+$/.test(v), "expected an email address or an https URL"),
    public_key: z.string().trim().min(16).max(4096).optional(),
    did: z
      .string()
      .trim()
      .max(512)
      .regex(/^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/, "expected a DID (did:method:identifier)")
      .optional(),
  })
  .refine((v) => v.public_key || v.did, { message: "a public_key or a did is required", path: ["public_key"] });

type Ctx = Context<AppBindings>;

export async function enroll(c: Ctx): Promise<Response> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new ApiError(400, "params_invalid", "The body must be a JSON object.");
  }
  const parsed = EnrollmentRequest.safeParse(raw);
  if (!parsed.success) throw new ApiError(400, "params_invalid", describeIssue(parsed.error, raw));
  const id = `agt_${crypto.randomUUID().replaceAll("-", "")}`;
  const [row] = await db(c.env.DB)
    .insert(agentEnrollments)
    .values({ id, name: parsed.data.name, contact: parsed.data.contact, publicKey: parsed.data.public_key ?? null, did: parsed.data.did ?? null, createdAt: Date.now() })
    .returning();
  return c.json(present(row!), 201, { location: `/agent-enrollments/${id}` });
}

export async function readEnrollment(c: Ctx): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const [row] = /^agt_[0-9a-f]{32}$/.test(id)
    ? await db(c.env.DB).select().from(agentEnrollments).where(eq(agentEnrollments.id, id)).limit(1)
    : [];
  if (!row) throw new ApiError(404, "unknown_record", "No agent enrollment has this id.");
  return c.json(present(row));
}

function present(row: AgentEnrollment) {
  return {
    id: row.id,
    name: row.name,
    contact: row.contact,
    public_key: row.publicKey,
    did: row.did,
    created_at: rfc3339(row.createdAt),
    // Enrollment is an introduction, not an entitlement.
    grants: [] as string[],
  };
}
