import { eq, lte } from "drizzle-orm";
import { db } from "../../db/client.js";
import { domains } from "../../db/schema-index.js";
import { smtpChecks } from "../../db/schema-smtp.js";
import { indexFor } from "../../db/shards.js";
import type { Env } from "../../env.js";
import { logError } from "../../request-context.js";
import { confirmAddress, dueFinds } from "../finder/confirm.js";
import { parseStoredFormats } from "../index/domain-names.js";
import { gatewayFor } from "./probe-gateway.js";
import type { SmtpRetryMessage } from "./smtp-retry-message.js";

/**
 * The background half of deferred SMTP answers. A greylisted (or paced) check was stored with its
 * retry time and a message sent to the smtp-retries queue with that delay; when it arrives, the
 * check runs again through the gateway (cache, pacer, prober) and its answer replaces the deferred
 * one, so the caller's next request gets it from the cache. A finder search waiting on such a check
 * (or one that used its checks without an answer) runs again the same way.
 */

export async function consumeSmtpRetries(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      await runRetry(env, message.body as SmtpRetryMessage, Date.now());
      message.ack();
    } catch (err) {
      logError(`smtp retry failed: ${err instanceof Error ? err.message : String(err)}`);
      message.retry({ delaySeconds: 60 });
    }
  }
}

async function runRetry(env: Env, body: SmtpRetryMessage, now: number): Promise<void> {
  const gateway = gatewayFor(env, () => now);
  if (body.kind === "check" && body.email) await gateway.check(body.email);
  if (body.kind === "find" && body.domain) await runDueFinds(env, now, body.domain);
}

async function runDueFinds(env: Env, now: number, domain?: string): Promise<number> {
  const gateway = gatewayFor(env, () => now);
  const due = await dueFinds(env, now, domain);
  for (const find of due) {
    const dom = await (await indexFor(env, find.domain))
      .select({ formats: domains.formats })
      .from(domains)
      .where(eq(domains.domain, find.domain))
      .get();
    await confirmAddress({ env, now: () => now, gateway }, find.domain, find.name, parseStoredFormats(dom?.formats));
  }
  return due.length;
}

/**
 * Runs every retry due by `now` at once, as the queue would have (the mail-world bench and tests
 * move time forward instead of waiting for it). Returns how many checks and searches ran.
 */
export async function runDueRetries(env: Env, now: number): Promise<{ checks: number; finds: number }> {
  const gateway = gatewayFor(env, () => now);
  const due = await db(env.DB)
    .select({ email: smtpChecks.email })
    .from(smtpChecks)
    .where(lte(smtpChecks.retryAt, now))
    .all();
  for (const { email } of due) await gateway.check(email);
  const finds = await runDueFinds(env, now);
  return { checks: due.length, finds };
}
