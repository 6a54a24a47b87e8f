import { eq } from "drizzle-orm";
import { db } from "../db/client.js";
import { accounts } from "../db/schema.js";
import type { Env } from "../env.js";
import { PLAN_NAMES } from "../limits/plans.js";
import { perBinding } from "../platform/isolate-state.js";

/**
 * The one account every agent-surface call runs as, so agents share its rate limits and the
 * rate-limit headers they see are that account's real counters. kind "agents" means no key can
 * log in as it (src/auth/authenticate.ts refuses every kind but "user"); it has no password and no keys.
 */
export const AGENTS_ACCOUNT_EMAIL = "agents@agent-surface.invalid";

export function agentsPlan(env: Env): string {
  const plan = env.AGENTS_PLAN?.trim() || "scale";
  return (PLAN_NAMES as readonly string[]).includes(plan) ? plan : "scale";
}

const known = perBinding<D1Database, number>("agentsAccountIds");

/** Id of the agents account, created on first use (idempotent under concurrent first requests). */
export async function agentsAccountId(env: Env): Promise<number> {
  const cached = known.get(env.DB);
  if (cached !== undefined) return cached;
  const store = db(env.DB);
  await store
    .insert(accounts)
    .values({
      email: AGENTS_ACCOUNT_EMAIL,
      kind: "agents",
      confirmed: true,
      passwordHash: null,
      plan: agentsPlan(env),
      firstName: "Agents",
    })
    .onConflictDoNothing({ target: accounts.email });
  const [row] = await store
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.email, AGENTS_ACCOUNT_EMAIL))
    .limit(1);
  if (!row) throw new Error("agents account could not be created");
  known.set(env.DB, row.id);
  return row.id;
}
