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

/** Enrollment is free and unauthenticated: bounded per client address and in size. */
export const ENROLLMENTS_PER_HOUR_PER_IP = 10;
export const MAX_ENROLLMENT_BODY_BYTES = 16 * 1024;

/** The body as text, refusing more than `max` bytes without reading past them. */
async function cappedBody(c: Ctx, max: number): Promise<string> {
  const tooLarge = () => new ApiError(413, "payload_too_large", `The request body is over ${max} bytes; an enrollment is a few hundred.`);
  if (Number(c.req.header("content-length") ?? 0) > max) throw tooLarge();
  const reader = c.req.raw.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

export async function enroll(c: Ctx): Promise<Response> {
  const ip = c.req.header("cf-connecting-ip") ?? "unknown";
  const limiter = c.env.ACCOUNT_LIMITER.get(c.env.ACCOUNT_LIMITER.idFromName(`ip:${ip}`));
  const window = await limiter.fixedWindow("agent-enrollments", ENROLLMENTS_PER_HOUR_PER_IP, 3_600_000, Date.now());
  if (!window.allowed) {
    throw new ApiError(429, "rate_limit", `Rate limit reached: ${ENROLLMENTS_PER_HOUR_PER_IP} enrollments per hour per address. Retry after ${window.resetSeconds} seconds.`, {
      "Retry-After": String(window.resetSeconds),
    });
  }
  const text = await cappedBody(c, MAX_ENROLLMENT_BODY_BYTES);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
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
