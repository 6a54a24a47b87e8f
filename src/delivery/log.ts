import { and, desc, eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { type DeliveryAttemptRow, deliveryAttempts } from "../db/schema-delivery.js";
import type { Env } from "../env.js";
import type { AttemptOutcome, DeliveryMessage } from "./types.js";

/** The attempt log: one row per attempt, readable by the account that owns the delivery. */

export async function recordAttempt(
  env: Env,
  delivery: DeliveryMessage,
  attempt: number,
  outcome: AttemptOutcome,
  result: { responseCode: number | null; durationMs: number; error: string | null },
): Promise<void> {
  await db(env.DB)
    .insert(deliveryAttempts)
    .values({
      deliveryId: delivery.id,
      accountId: delivery.accountId,
      webhookId: delivery.webhookId,
      kind: delivery.kind,
      url: delivery.url,
      attempt,
      outcome,
      responseCode: result.responseCode,
      durationMs: Math.max(0, Math.round(result.durationMs)),
      error: result.error,
      createdAt: Date.now(),
    });
}

export interface AttemptPage {
  rows: DeliveryAttemptRow[];
  total: number;
}

/** Newest first. `webhookId` narrows to one webhook configuration; `deliveryId` to one delivery. */
export async function listAttempts(
  env: Env,
  accountId: number,
  filter: { webhookId?: number; deliveryId?: string; page: number; limit: number },
): Promise<AttemptPage> {
  const where = and(
    eq(deliveryAttempts.accountId, accountId),
    filter.webhookId !== undefined ? eq(deliveryAttempts.webhookId, filter.webhookId) : undefined,
    filter.deliveryId !== undefined ? eq(deliveryAttempts.deliveryId, filter.deliveryId) : undefined,
  );
  const store = db(env.DB);
  const [rows, total] = await Promise.all([
    store
      .select()
      .from(deliveryAttempts)
      .where(where)
      .orderBy(desc(deliveryAttempts.id))
      .limit(filter.limit)
      .offset((filter.page - 1) * filter.limit),
    store.$count(deliveryAttempts, where),
  ]);
  return { rows, total };
}

/** Attempts of one delivery, oldest first (tests and diagnostics). */
export async function attemptsOf(env: Env, deliveryId: string): Promise<DeliveryAttemptRow[]> {
  return db(env.DB)
    .select()
    .from(deliveryAttempts)
    .where(eq(deliveryAttempts.deliveryId, deliveryId))
    .orderBy(deliveryAttempts.id);
}
