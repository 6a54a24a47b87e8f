import { and, eq, sql } from "drizzle-orm";
import { db } from "../db/client.js";
import { signingSecrets } from "../db/schema-delivery.js";
import type { Env } from "../env.js";
import type { SecretScope } from "./types.js";

/**
 * Per-account Standard Webhooks secrets, one per scope. The raw secret has to be kept (HMAC needs
 * it to sign), so it is stored as is; it is only ever shown to its own account.
 */

export interface SigningSecretRecord {
  secret: string;
  createdAt: number;
  rotatedAt: number | null;
}

/** `whsec_` + base64 of 24 random bytes, the format the standardwebhooks libraries read. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** The account's secret for a scope with its dates, created on first use. */
export async function signingSecretRecord(
  env: Env,
  accountId: number,
  scope: SecretScope,
): Promise<SigningSecretRecord> {
  const store = db(env.DB);
  const where = and(eq(signingSecrets.accountId, accountId), eq(signingSecrets.scope, scope));
  const [existing] = await store.select().from(signingSecrets).where(where).limit(1);
  if (existing) return existing;
  // Two first uses can race: the insert that loses does nothing and both read the winner.
  await store
    .insert(signingSecrets)
    .values({ accountId, scope, secret: newSecret(), createdAt: Date.now() })
    .onConflictDoNothing();
  const [row] = await store.select().from(signingSecrets).where(where).limit(1);
  if (!row) throw new Error("reading a signing secret after its upsert found no row");
  return row;
}

/** The account's `whsec_...` secret for a scope, created on first use. */
export async function signingSecret(env: Env, accountId: number, scope: SecretScope): Promise<string> {
  return (await signingSecretRecord(env, accountId, scope)).secret;
}

/** Replaces the secret; deliveries signed from now on use the new one. */
export async function rotateSigningSecret(env: Env, accountId: number, scope: SecretScope): Promise<string> {
  const secret = newSecret();
  const now = Date.now();
  await db(env.DB)
    .insert(signingSecrets)
    .values({ accountId, scope, secret, createdAt: now, rotatedAt: now })
    .onConflictDoUpdate({
      target: [signingSecrets.accountId, signingSecrets.scope],
      set: { secret, rotatedAt: sql`${now}` },
    });
  return secret;
}
