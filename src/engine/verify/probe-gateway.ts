import { and, eq, isNull, lt } from "drizzle-orm";
import { db } from "../../db/client.js";
import { smtpChecks } from "../../db/schema-smtp.js";
import type { Env } from "../../env.js";
import { resolveMx } from "../dns/resolver.js";
import { mailHostOf, type PaceLimits } from "./mail-host-pacer.js";
import { domainState, publishedAddressOf, setRejectionsTrusted } from "./smtp-domains.js";
import { NOT_RUN, NoSmtpProber, type ProbeResult, proberFor, type SmtpProber } from "./smtp-prober.js";

/**
 * The one path every SMTP check takes, whichever surface asked: the per-address result cache, the
 * mail host's pacer (mail-host-pacer.ts), the prober itself, and a background retry for a deferred
 * answer (a greylisting server's 4xx, or a pace that did not open in time).
 *
 * Settings (wrangler vars): SMTP_CACHE_SECONDS (how long an answer is reused, default 7 days),
 * SMTP_HOST_MAX_IN_FLIGHT (checks at once per mail host, default 2), SMTP_HOST_MAX_PER_MINUTE
 * (default 30), SMTP_RETRY_SECONDS (waits before each background retry of a deferred check,
 * default "300,900,3600": greylisting servers usually let a retry through after 1 to 15 minutes).
 */

export interface GatewayProbe extends ProbeResult {
  /** Answered from the cache: no SMTP conversation took place. */
  fromCache: boolean;
  /** SMTP conversations this answer cost: 0 from the cache, 2 when the domain's published address was tested too. */
  conversations: number;
}

/** The prober said the mailbox does not exist (every flag false), as opposed to a failed conversation. */
export function readsNonexistent(p: ProbeResult): boolean {
  return (
    p.ran &&
    !p.greylisted &&
    !p.blocked &&
    p.catchAll !== true &&
    p.fullInbox !== true &&
    p.disabled !== true &&
    (p.deliverable === false || p.reachability === "invalid")
  );
}

/** A "no such mailbox" not believed yet (see smtp-domains.ts): open, retried like greylisting. */
function unreliableRejection(p: ProbeResult): ProbeResult {
  return {
    ...p,
    reachability: "unknown",
    deliverable: null,
    greylisted: true,
    rejectionUnreliable: true,
    error:
      "read as nonexistent at a first contact, as the domain's own published address was: greylisting behind a rejection (postgrey through Reacher), checked again later",
  };
}

const DAY_S = 86_400;

export function smtpSettings(env: Env) {
  const int = (v: string | undefined, fallback: number) => {
    const n = Number(v);
    return v !== undefined && v !== "" && Number.isFinite(n) && n >= 0 ? n : fallback;
  };
  const retries = (env.SMTP_RETRY_SECONDS ?? "300,900,3600")
    .split(",")
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isFinite(n) && n >= 0);
  return {
    cacheMs: int(env.SMTP_CACHE_SECONDS, 7 * DAY_S) * 1000,
    pace: {
      maxInFlight: Math.max(1, int(env.SMTP_HOST_MAX_IN_FLIGHT, 2)),
      perMinute: Math.max(1, int(env.SMTP_HOST_MAX_PER_MINUTE, 30)),
      leaseMs: 90_000,
    } satisfies PaceLimits,
    retrySeconds: retries.length ? retries : [300, 900, 3600],
    /** How long a check may wait for its mail host's pace before it is deferred instead. */
    maxPaceWaitMs: int(env.SMTP_PACE_WAIT_MS, 10_000),
  };
}

const deferred = (p: ProbeResult) => p.greylisted || p.paced === true;

export class SmtpGateway implements SmtpProber {
  readonly name: string;

  constructor(
    private readonly env: Env,
    private readonly inner: SmtpProber = proberFor(env),
    private readonly clock: () => number = () => Date.now(),
  ) {
    this.name = inner.name;
  }

  /** Whether a prober is configured at all (without one nothing is checked, cached or paced). */
  get runs(): boolean {
    return !(this.inner instanceof NoSmtpProber);
  }

  async probe(email: string): Promise<ProbeResult> {
    return this.check(email);
  }

  /**
   * The prober's answer for `email`: from the cache while fresh (a deferred answer until its retry
   * is due), else a new check once the mail host's pacer lets it through. `force` skips the cache
   * (the background retry itself); `mayTestPublished: false` forbids testing the domain's published
   * address (one more conversation) when this check reads "no such mailbox".
   */
  async check(
    email: string,
    opts: { mxHosts?: string[]; force?: boolean; mayTestPublished?: boolean } = {},
  ): Promise<GatewayProbe> {
    if (!this.runs) return { ...(await this.inner.probe(email)), fromCache: false, conversations: 0 };
    const address = email.toLowerCase();
    const domain = address.slice(address.lastIndexOf("@") + 1);
    const settings = smtpSettings(this.env);
    const now = this.clock();
    const cached = opts.force ? undefined : await readCheck(this.env, address);
    if (cached) {
      const due = cached.retryAt !== null && cached.retryAt <= now;
      if (deferred(cached.result) ? !due : now - cached.checkedAt < settings.cacheMs)
        return { ...cached.result, retryAt: cached.retryAt, fromCache: true, conversations: 0 };
    }
    const mxHosts = opts.mxHosts ?? (await resolveMx(this.env, domain)).records.map((r) => r.exchange);
    const host = mailHostOf(mxHosts, domain);
    const slot = await this.takeSlot(host, settings);
    let result: ProbeResult;
    if ("waitMs" in slot) {
      result = pacedResult(host);
    } else {
      try {
        result = await this.inner.probe(address);
      } finally {
        await this.releaseSlot(host, slot.ticket);
      }
    }
    const attempts = cached && deferred(cached.result) ? cached.attempts + 1 : 1;
    let conversations = "waitMs" in slot ? 0 : 1;
    // A "no such mailbox" is believed once the domain's published address showed that such answers
    // are true here; until the retries run out it stays open where that address read nonexistent too.
    if (readsNonexistent(result) && settings.retrySeconds[attempts - 1] !== undefined) {
      const trust = await this.rejectionsTrusted(domain, address, mxHosts, opts.mayTestPublished !== false);
      conversations += trust.conversations;
      if (trust.trusted === false) result = unreliableRejection(result);
    }
    const retryAt = await this.store(address, domain, result, now, attempts);
    return { ...result, retryAt, fromCache: false, conversations };
  }

  /** Stores an answer (with its background retry when deferred); its retry time or null. */
  private async store(address: string, domain: string, result: ProbeResult, now: number, attempts: number) {
    const settings = smtpSettings(this.env);
    const wait = deferred(result) ? settings.retrySeconds[attempts - 1] : undefined;
    const retryAt = wait === undefined ? null : now + wait * 1000;
    await writeCheck(this.env, { email: address, domain, result, checkedAt: now, retryAt, attempts });
    if (wait !== undefined)
      await this.env.SMTP_RETRY_QUEUE?.send({ kind: "check", email: address }, { delaySeconds: wait });
    return retryAt;
  }

  /**
   * Whether `domain`'s "no such mailbox" answers are true at a first contact: remembered, or tested
   * once with an address its own pages publish (which exists): accepted, full, disabled or deferred
   * by name, they are; read as nonexistent, they are not (that address is then retried too). Null
   * when the domain publishes no address or the test said nothing.
   */
  private async rejectionsTrusted(domain: string, except: string, mxHosts: string[], mayTest: boolean) {
    const known = (await domainState(this.env, domain)).rejectionsTrusted;
    if (known !== null || !mayTest) return { trusted: known, conversations: 0 };
    // Google Workspace and Microsoft 365 do not greylist behind a rejection (that is Postfix with a
    // policy server): their answers are taken as they are, without spending a check on it.
    if (mailHostOf(mxHosts, domain) === "google" || mailHostOf(mxHosts, domain) === "microsoft")
      return { trusted: true, conversations: 0 };
    const published = await publishedAddressOf(this.env, domain, except);
    if (!published) return { trusted: null, conversations: 0 };
    const p = await this.check(published, { mxHosts, mayTestPublished: false });
    const exists =
      p.deliverable === true || p.fullInbox === true || p.disabled === true || (p.greylisted && !p.rejectionUnreliable);
    const trusted = exists ? true : readsNonexistent(p) ? false : null;
    if (trusted !== null) await setRejectionsTrusted(this.env, domain, trusted);
    if (trusted === false && !p.fromCache) await this.store(published, domain, unreliableRejection(p), this.clock(), 1);
    return { trusted, conversations: p.conversations };
  }

  private pacer(host: string) {
    const ns = this.env.MAIL_HOST_PACER;
    return ns ? ns.get(ns.idFromName(`mail-host:${host}`)) : null;
  }

  /** A slot from the mail host's pacer, waiting up to maxPaceWaitMs; `waitMs` when none opened in time. */
  private async takeSlot(host: string, settings: ReturnType<typeof smtpSettings>) {
    const pacer = this.pacer(host);
    if (!pacer) return { ticket: "" };
    const started = Date.now();
    for (;;) {
      const answer = await pacer.acquire(settings.pace);
      if ("ticket" in answer) return answer;
      if (Date.now() - started + answer.waitMs > settings.maxPaceWaitMs) return answer;
      await new Promise((r) => setTimeout(r, answer.waitMs));
    }
  }

  private async releaseSlot(host: string, ticket: string) {
    if (ticket) await this.pacer(host)?.release(ticket);
  }
}

function pacedResult(host: string): ProbeResult {
  return {
    ...NOT_RUN,
    reachability: "unknown",
    paced: true,
    error: `paced: the checks allowed on mail host ${host} are all taken`,
  };
}

interface CheckRow {
  email: string;
  domain: string;
  result: ProbeResult;
  checkedAt: number;
  retryAt: number | null;
  attempts: number;
}

async function readCheck(env: Pick<Env, "DB">, email: string): Promise<CheckRow | undefined> {
  const row = await db(env.DB).select().from(smtpChecks).where(eq(smtpChecks.email, email)).get();
  if (!row) return undefined;
  try {
    return { ...row, result: JSON.parse(row.result) as ProbeResult };
  } catch {
    return undefined;
  }
}

async function writeCheck(env: Pick<Env, "DB">, row: CheckRow): Promise<void> {
  const values = { ...row, result: JSON.stringify({ ...row.result, retryAt: undefined }) };
  await db(env.DB)
    .insert(smtpChecks)
    .values(values)
    .onConflictDoUpdate({
      target: smtpChecks.email,
      set: { result: values.result, checkedAt: values.checkedAt, retryAt: values.retryAt, attempts: values.attempts },
    })
    .run();
}

/** The gateway for this environment (the configured prober behind the cache and the pacers). */
export function gatewayFor(env: Env, clock?: () => number): SmtpGateway {
  return new SmtpGateway(env, proberFor(env), clock);
}

/**
 * The retention of the per-address cache (run by the scheduled handler): answers older than
 * SMTP_CACHE_SECONDS are never reused, so their rows are deleted; a deferred answer still waiting
 * on its background retry stays. Returns how many rows went.
 */
export async function pruneSmtpChecks(env: Env, now: number): Promise<number> {
  const cutoff = now - smtpSettings(env).cacheMs;
  const gone = await db(env.DB)
    .delete(smtpChecks)
    .where(and(lt(smtpChecks.checkedAt, cutoff), isNull(smtpChecks.retryAt)))
    .returning({ email: smtpChecks.email })
    .all();
  return gone.length;
}
