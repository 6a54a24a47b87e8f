import { and, eq, ne } from "drizzle-orm";
import { db } from "../../db/client.js";
import { emails } from "../../db/schema-index.js";
import { smtpDomains } from "../../db/schema-smtp.js";
import { indexFor } from "../../db/shards.js";
import type { Env } from "../../env.js";

/**
 * What the SMTP checks learnt per domain (`smtp_domains`): the random local part of its accept-all
 * test, whether it accepts everything, the formats its checks ruled out, and whether its "no such
 * mailbox" answers can be believed at a first contact.
 *
 * That last one is needed because of how Reacher reads greylisting behind Postfix. postgrey, the
 * usual greylisting policy for Postfix, answers DEFER_IF_PERMIT by default (postgrey(8): "--greylist-
 * action=A if greylisted, return A to Postfix (default: DEFER_IF_PERMIT)"), so Postfix rejects an
 * unknown recipient outright and defers a known one with "450 4.2.0 <a@b>: Recipient address
 * rejected: Greylisted, see http://postgrey.schweikert.ch/help/b.html". Reacher's parser
 * (core/src/smtp/parser.rs `is_invalid`) matches "address rejected" in that deferral, so through
 * Reacher an existing mailbox reads exactly like a missing one (`is_reachable: "invalid"`, every
 * flag false) until the greylisting delay has passed (postgrey: 300 s by default, per recipient).
 * No field of Reacher's answer tells the two apart; an address the domain's own pages publish does:
 * when it too reads as nonexistent, the domain's first-contact rejections are not believed
 * (`SmtpGateway.rejectionsTrusted`, probe-gateway.ts).
 */

export type SmtpDomainRow = typeof smtpDomains.$inferSelect;

export function randomLocal(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return `x${[...bytes].map((b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("")}`;
}

/** The domain's row, created (with a fresh random local part) when it has none yet. */
export async function domainState(env: Pick<Env, "DB">, domain: string): Promise<SmtpDomainRow> {
  const row = await db(env.DB).select().from(smtpDomains).where(eq(smtpDomains.domain, domain)).get();
  if (row) return row;
  const fresh: SmtpDomainRow = {
    domain,
    probeLocal: randomLocal(),
    acceptAll: null,
    checkedAt: null,
    ruledOut: "[]",
    rejectionsTrusted: null,
  };
  await db(env.DB).insert(smtpDomains).values(fresh).onConflictDoNothing().run();
  return (await db(env.DB).select().from(smtpDomains).where(eq(smtpDomains.domain, domain)).get()) ?? fresh;
}

export async function setRejectionsTrusted(env: Pick<Env, "DB">, domain: string, trusted: boolean): Promise<void> {
  await domainState(env, domain);
  await db(env.DB).update(smtpDomains).set({ rejectionsTrusted: trusted }).where(eq(smtpDomains.domain, domain)).run();
}

/**
 * An address the domain's own pages publish (a role address first: info@ outlives any one person),
 * other than `except`; null when its pages show none.
 */
export async function publishedAddressOf(env: Env, domain: string, except: string): Promise<string | null> {
  const rows = await (await indexFor(env, domain))
    .select({ email: emails.email, type: emails.type })
    .from(emails)
    .where(and(eq(emails.domain, domain), eq(emails.source, "crawl"), ne(emails.email, except)))
    .limit(20)
    .all();
  const generic = rows.find((r) => r.type === "generic");
  return (generic ?? rows[0])?.email ?? null;
}
