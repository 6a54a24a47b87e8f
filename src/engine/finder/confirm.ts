import { and, eq, lte } from "drizzle-orm";
import { db } from "../../db/client.js";
import { domains, emails } from "../../db/schema-index.js";
import { smtpDomains, smtpPendingFinds } from "../../db/schema-smtp.js";
import { indexFor } from "../../db/shards.js";
import type { Env } from "../../env.js";
import { resolveMx } from "../dns/resolver.js";
import { parseStoredFormats } from "../index/domain-names.js";
import { emailsOfDomain, namedAddresses, shownNamesOf } from "../index/read.js";
import { nameKey, type PersonName } from "../people/names.js";
import { type GatewayProbe, gatewayFor, type SmtpGateway } from "../verify/probe-gateway.js";
import { domainState } from "../verify/smtp-domains.js";
import { type Candidate, candidateAddresses, parseRuleOuts, withRejections } from "./candidates.js";
import { formatCountsFor, recordDomainFormat } from "./format-tallies.js";
import { namesWriteFamilyFirst, readShownName, twoFamilyNamesAt } from "./name-culture.js";
import { inferPatterns, type Pattern, type PatternInference } from "./patterns.js";
import { shownPeople } from "./shown-people.js";
import { type RankCandidates, type WebLead, webLead } from "./web-lead.js";

/**
 * Confirms a person's address over SMTP where a domain's pages show no format: the candidates
 * (candidates.ts) in order, stopping at the first the server accepts, once it is known that the
 * domain does not accept any address (a rejected candidate proves it; else a random local part,
 * tested once per domain and remembered, after the first accepted candidate). At most
 * MAX_PROBES_PER_ANSWER SMTP conversations per answer, the checks the answer made before the search
 * (a proposal from a format that the person's mailbox contradicted) included; answers the cache
 * already holds cost none.
 *
 * A confirmed address is stored as evidence for the domain's format, like an address read from a
 * page, with its source ("smtp_check") and date, so the next person at the domain is proposed from
 * the format and needs one check at most. A deferred answer (greylisting, pacing, a timeout) leaves
 * a pending search that the smtp-retries queue runs again when its retry is due; a search that used
 * its checks without an answer continues there too, so the next call finds the confirmed address.
 * A search that ends without an answer looks for a Gravatar profile or a WKD key among the person's
 * and the team page's likeliest addresses (web-lead.ts): the address it points at leads the open
 * answer, and the address with the evidence is stored like a confirmed one, with its source.
 */

export const MAX_PROBES_PER_ANSWER = 5;
/** Background rounds of a search after the first answer (each within the same per-round cap). */
export const MAX_BACKGROUND_ROUNDS = 3;
/** Wait before continuing a search that used its checks without an answer (seconds). */
const CONTINUE_AFTER_S = 60;
/** How long a domain's accept-all test is trusted. */
const ACCEPT_ALL_TEST_MS = 30 * 86_400_000;

export type Confirmation =
  | { kind: "confirmed"; candidate: Candidate; best: Candidate; probe: GatewayProbe; probes: number }
  | { kind: "accept_all"; best: Candidate; probes: number; likeliest: Candidate[] }
  | ({
      kind: "deferred";
      best: Candidate;
      why: "greylisted" | "paced" | "inconclusive";
      retryAt: number | null;
      probes: number;
      /** The guess is the candidate the server deferred after rejecting a missing one: it exists. */
      held?: boolean;
    } & Led)
  | ({ kind: "refused"; best: Candidate; error: string | null; probes: number } & Led)
  | ({ kind: "exhausted"; best: Candidate; retryAt: number | null; probes: number } & Led);
// `best` is the likeliest candidate no check has rejected: the guess an open answer shows, or the
// one web evidence points at (`lead`).
interface Led {
  lead?: WebLead;
}

interface ConfirmCtx {
  env: Env;
  now: () => number;
  gateway?: SmtpGateway;
  /** Checks the answer already spent before this search (a proposal's check): they count against its cap. */
  spent?: number;
}

type Outcome =
  | "accepted"
  | "rejected"
  | "accept_all"
  | "greylisted"
  | "unreliable"
  | "paced"
  | "refused"
  | "inconclusive";

function outcomeOf(p: GatewayProbe): Outcome {
  if (p.paced) return "paced";
  if (p.blocked) return "refused";
  if (p.rejectionUnreliable) return "unreliable";
  if (p.greylisted) return "greylisted";
  if (p.catchAll === true) return "accept_all";
  if (p.deliverable === true || p.fullInbox === true || p.disabled === true) return "accepted";
  if (p.deliverable === false || p.reachability === "invalid") return "rejected";
  return "inconclusive";
}

/**
 * Searches `name`'s address at `domain` over SMTP. `inference` is the domain's weak format evidence
 * (null when it has none). Null when no prober is configured.
 */
export async function confirmAddress(
  ctx: ConfirmCtx,
  domain: string,
  name: PersonName,
  inference: PatternInference | null,
): Promise<Confirmation | null> {
  const { env } = ctx;
  const gateway = ctx.gateway ?? gatewayFor(env, ctx.now);
  if (!gateway.runs) return null;
  const state = await domainState(env, domain);
  const ruledOut = parseRuleOuts(state.ruledOut);
  const counts = await formatCountsFor(env, domain);
  // The names the domain's team page shows: their culture, and the formats two of them cannot share.
  const shown = shownPeople(
    (await shownNamesOf(await indexFor(env, domain), domain)).map((p) => p.fullName),
    domain,
  );
  const namesFamilyFirst = namesWriteFamilyFirst(shown, name.last);
  const twoFamilyNames = twoFamilyNamesAt(domain, shown);
  const colleagues = [
    name,
    ...shown.map((n) => readShownName(n, domain, twoFamilyNames)).filter((n): n is PersonName => n !== null),
  ];
  const rank: RankCandidates = (who, format) =>
    candidateAddresses(who, domain, { inference: format ?? inference, ruledOut, counts, namesFamilyFirst, colleagues });
  const candidates = rank(name, null);
  const best = candidates[0];
  if (!best) return null;
  const mxHosts = (await resolveMx(env, domain)).records.map((r) => r.exchange);
  let probes = ctx.spent ?? 0;
  const check = async (local: string) => {
    // Testing the domain's published address (smtp-domains.ts) costs one more conversation.
    const mayTestPublished = probes + 2 <= MAX_PROBES_PER_ANSWER;
    const p = await gateway.check(`${local}@${domain}`, { mxHosts, mayTestPublished });
    probes += p.conversations;
    return p;
  };
  const rejected: Candidate[] = [];
  // No answer from the checks: evidence over HTTPS may still name the address (web-lead.ts). Its
  // lookups are ranked with this search's rejections as rule-outs too, so they go to the formats no
  // check has tried yet (a colleague's three likeliest would otherwise be the formats just rejected
  // for the person); a format the evidence shows is the domain's, whatever a rejection said of it.
  const led = async <C extends Confirmation & Led>(open: C): Promise<C> => {
    const after = withRejections(ruledOut, rejected);
    const leadRank: RankCandidates = (who, format) => {
      const shown = new Set(format?.shares.map((x) => x.pattern));
      const left = Object.fromEntries(Object.entries(after).filter(([p]) => !shown.has(p as Pattern)));
      return candidateAddresses(who, domain, {
        inference: format ?? inference,
        ruledOut: left,
        counts,
        namesFamilyFirst,
        colleagues,
      });
    };
    const lead = await webLead(env, domain, name, colleagues.slice(1), leadRank, new Set(rejected.map((c) => c.local)));
    if (!lead) return open;
    await storeConfirmed(env, domain, lead.evidenceFor, ctx.now(), WEB_EVIDENCE_SOURCE[lead.source]);
    return { ...open, best: lead.candidate, lead };
  };
  const defer = async (why: "greylisted" | "paced" | "inconclusive", p: GatewayProbe): Promise<Confirmation> => {
    const retryAt = await rememberPending(ctx, domain, name, p.retryAt ?? ctx.now() + CONTINUE_AFTER_S * 1000);
    return led({ kind: "deferred", best, why, retryAt, probes });
  };

  // Whether a greylisted candidate exists: the server rejected another candidate outright in this
  // search, or rejects the domain's random local part outright now (one more check, when allowed).
  const existsBehindGreylisting = async (sawRejection: boolean) => {
    if (sawRejection) return true;
    if (probes >= MAX_PROBES_PER_ANSWER) return false;
    return outcomeOf(await check(state.probeLocal)) === "rejected";
  };

  // Whether the domain accepts any address is known from an earlier search (trusted for a while), or
  // learnt on the way: a rejected candidate proves it does not, so the test with the domain's random
  // local part is spent only when a candidate is accepted before any was rejected. Testing first
  // would spend one of the answer's checks on every first search at a domain.
  const known =
    state.acceptAll !== null && state.checkedAt !== null && ctx.now() - state.checkedAt <= ACCEPT_ALL_TEST_MS;
  let acceptAll: boolean | null = known ? state.acceptAll : null;
  if (acceptAll) return { kind: "accept_all", best, probes, likeliest: candidates.slice(0, 3) };

  // The candidates in order, until one is accepted or the checks of this answer are used.
  let untried = 0;
  // Candidates read as nonexistent where such answers are not believed yet (postgrey through
  // Reacher): each first contact starts the server's greylisting clock for that address, so the
  // search touches as many as it may and the background round checks them again.
  let touchedRetryAt: number | null = null;
  let sawRejection = false;
  for (const candidate of candidates) {
    // An acceptance before the domain is known needs one more check (the random local part).
    if (probes >= MAX_PROBES_PER_ANSWER - (acceptAll === null ? 1 : 0)) break;
    untried++;
    const p = await check(candidate.local);
    let o = outcomeOf(p);
    // `last` is the check whose answer decides (the test's when it ran and said nothing clear).
    let last = p;
    if (o === "accepted" && acceptAll === null) {
      const testProbe = await check(state.probeLocal);
      const test = outcomeOf(testProbe);
      if (test === "accepted" || test === "accept_all" || test === "rejected") {
        acceptAll = test !== "rejected";
        if (acceptAll) o = "accept_all";
        else await recordAcceptAll(env, domain, false, ctx.now());
      } else {
        o = test;
        last = testProbe;
      }
    }
    if (o === "accepted") {
      await rememberRejected(env, domain, rejected);
      await storeConfirmed(env, domain, candidate, ctx.now());
      await forgetPending(env, domain, name);
      return { kind: "confirmed", candidate, best, probe: p, probes };
    }
    if (o === "unreliable") {
      // Not accepted: whatever the mailbox, the server does not take every address.
      if (acceptAll === null) {
        acceptAll = false;
        await recordAcceptAll(env, domain, false, ctx.now());
      }
      touchedRetryAt = Math.min(touchedRetryAt ?? Number.POSITIVE_INFINITY, last.retryAt ?? ctx.now());
      continue;
    }
    if (o === "greylisted" && (await existsBehindGreylisting(sawRejection))) {
      // The server rejected a missing mailbox outright and deferred this one: it checks recipients
      // before greylisting (postgrey's DEFER_IF_PERMIT, Exim's verify = recipient first), so this
      // mailbox exists. Still open until the retry confirms it, but the answer names it.
      await rememberRejected(env, domain, rejected);
      const retryAt = await rememberPending(ctx, domain, name, last.retryAt ?? ctx.now() + CONTINUE_AFTER_S * 1000);
      return {
        kind: "deferred",
        best: candidate,
        why: "greylisted",
        retryAt,
        probes,
        held: true,
      };
    }
    if (o === "rejected") {
      sawRejection = true;
      if (acceptAll === null) {
        acceptAll = false;
        await recordAcceptAll(env, domain, false, ctx.now());
      }
      rejected.push(candidate);
      continue;
    }
    await rememberRejected(env, domain, rejected);
    if (o === "accept_all") {
      await recordAcceptAll(env, domain, true, ctx.now());
      return { kind: "accept_all", best, probes, likeliest: candidates.slice(0, 3) };
    }
    if (o === "refused") return led({ kind: "refused", best, error: last.error, probes });
    return defer(o, last);
  }
  await rememberRejected(env, domain, rejected);
  if (touchedRetryAt !== null) {
    const retryAt = await rememberPending(ctx, domain, name, touchedRetryAt);
    return led({ kind: "deferred", best, why: "greylisted", retryAt, probes });
  }
  const next = candidates[untried];
  const retryAt = next ? await rememberPending(ctx, domain, name, ctx.now() + CONTINUE_AFTER_S * 1000) : null;
  return led({ kind: "exhausted", best: next ?? best, retryAt, probes });
}

async function recordAcceptAll(env: Env, domain: string, acceptAll: boolean, now: number) {
  await db(env.DB).update(smtpDomains).set({ acceptAll, checkedAt: now }).where(eq(smtpDomains.domain, domain)).run();
  // The verifier and the finder's answers read the domain row's flag too (in the domain's index database).
  await (await indexFor(env, domain))
    .update(domains)
    .set({ acceptAll, updatedAt: now })
    .where(eq(domains.domain, domain))
    .run();
}

async function rememberRejected(env: Env, domain: string, rejected: readonly Candidate[]) {
  if (rejected.length === 0) return;
  const state = await db(env.DB).select().from(smtpDomains).where(eq(smtpDomains.domain, domain)).get();
  const all = withRejections(parseRuleOuts(state?.ruledOut), rejected);
  await db(env.DB)
    .update(smtpDomains)
    .set({ ruledOut: JSON.stringify(all) })
    .where(eq(smtpDomains.domain, domain))
    .run();
}

/**
 * A confirmed address proves its format at the domain: whatever rejection ruled it out (this search's
 * or an earlier one's) was of another spelling (ulrike.boehm@ where the domain writes ulrike.bohm@)
 * or of someone without a mailbox, so the next people's checks go to the format again.
 */
async function liftRuleOut(env: Env, domain: string, pattern: Pattern) {
  const state = await db(env.DB).select().from(smtpDomains).where(eq(smtpDomains.domain, domain)).get();
  const known = parseRuleOuts(state?.ruledOut);
  if (known[pattern] === undefined) return;
  const { [pattern]: _lifted, ...left } = known;
  await db(env.DB)
    .update(smtpDomains)
    .set({ ruledOut: JSON.stringify(left) })
    .where(eq(smtpDomains.domain, domain))
    .run();
}

/**
 * Stores a confirmed address like an address read from a page: a named personal row whose source is
 * the SMTP check or the web evidence (and its date: first/last seen), then the domain's formats read
 * again with it.
 */
async function storeConfirmed(env: Env, domain: string, c: Candidate, now: number, source = CONFIRMED_SOURCE) {
  await liftRuleOut(env, domain, c.pattern);
  const email = `${c.local}@${domain}`;
  const index = await indexFor(env, domain);
  await index
    .insert(emails)
    .values({
      email,
      domain,
      localPart: c.local,
      type: "personal",
      firstName: c.name.first,
      lastName: c.name.last,
      middleName: c.name.middle ?? null,
      source,
      firstSeenAt: now,
      lastSeenAt: now,
    })
    .onConflictDoUpdate({ target: emails.email, set: { lastSeenAt: now } })
    .run();
  const dom = await index.select({ formats: domains.formats }).from(domains).where(eq(domains.domain, domain)).get();
  if (!dom) return;
  const stated = parseStoredFormats(dom.formats)?.stated ?? [];
  const inference = inferPatterns(namedAddresses(await emailsOfDomain(env, domain)));
  await recordDomainFormat(env, domain, inference, source === CONFIRMED_SOURCE ? "smtp_check" : "web_evidence", now);
  await index
    .update(domains)
    .set({ formats: JSON.stringify({ ...inference, stated }), updatedAt: now })
    .where(eq(domains.domain, domain))
    .run();
}

/** The `emails.source` of an address an SMTP check confirmed (not seen on any page). */
export const CONFIRMED_SOURCE = "smtp_check";
/** The `emails.source` of an address a Gravatar profile or a WKD key showed to exist (not seen on any page). */
export const WEB_EVIDENCE_SOURCE = { gravatar: "gravatar_profile", wkd: "wkd_key" } as const;
/** An address stored from a check or from web evidence, not read on a page. */
export const isConfirmedSource = (source: string | null | undefined) =>
  source === CONFIRMED_SOURCE || Object.values(WEB_EVIDENCE_SOURCE).some((s) => s === source);

/**
 * Schedules the person's search to run again at `dueAt`; returns when it will run (the time already
 * scheduled when asked again before then), or null when its background rounds are used up.
 */
async function rememberPending(
  ctx: ConfirmCtx,
  domain: string,
  name: PersonName,
  dueAt: number,
): Promise<number | null> {
  const key = nameKey(`${name.first} ${name.last}`);
  const existing = await db(ctx.env.DB)
    .select()
    .from(smtpPendingFinds)
    .where(and(eq(smtpPendingFinds.domain, domain), eq(smtpPendingFinds.nameKey, key)))
    .get();
  // Asking again before the retry is due reschedules nothing; each new due time is one more round.
  if (existing && existing.dueAt === dueAt) return dueAt;
  const attempts = (existing?.attempts ?? 0) + 1;
  if (attempts > MAX_BACKGROUND_ROUNDS + 1) {
    await forgetPending(ctx.env, domain, name);
    return null;
  }
  await db(ctx.env.DB)
    .insert(smtpPendingFinds)
    .values({ domain, nameKey: key, name: JSON.stringify(name), dueAt, attempts })
    .onConflictDoUpdate({ target: [smtpPendingFinds.domain, smtpPendingFinds.nameKey], set: { dueAt, attempts } })
    .run();
  const delaySeconds = Math.max(0, Math.ceil((dueAt - ctx.now()) / 1000));
  await ctx.env.SMTP_RETRY_QUEUE?.send({ kind: "find", domain }, { delaySeconds });
  return dueAt;
}

async function forgetPending(env: Env, domain: string, name: PersonName) {
  const key = nameKey(`${name.first} ${name.last}`);
  await db(env.DB)
    .delete(smtpPendingFinds)
    .where(and(eq(smtpPendingFinds.domain, domain), eq(smtpPendingFinds.nameKey, key)))
    .run();
}

/** Pending searches due by `now` (at one domain, or everywhere). */
export async function dueFinds(env: Env, now: number, domain?: string) {
  const due = lte(smtpPendingFinds.dueAt, now);
  const rows = await db(env.DB)
    .select()
    .from(smtpPendingFinds)
    .where(domain ? and(due, eq(smtpPendingFinds.domain, domain)) : due)
    .all();
  return rows.map((r) => ({ domain: r.domain, name: JSON.parse(r.name) as PersonName }));
}
